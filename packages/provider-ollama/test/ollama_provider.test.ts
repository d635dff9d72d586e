import type { Message } from '@lich/core';
import type { ProviderConfig } from '@lich/providers';
import {
  type ContractConfig,
  picture_conversation,
  provider_contract_suite,
  TINY_PNG_BASE64,
  WEATHER_TOOL,
} from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { create_ollama_provider, OLLAMA_KIND } from '../src/index.js';

const ollama = provider_contract_suite({
  format: 'ollama',
  kind: OLLAMA_KIND,
  create: (config: Partial<ProviderConfig> & ContractConfig) =>
    create_ollama_provider({ kind: OLLAMA_KIND, model: 'qwen3:8b', ...config }),
  no_stream_options: { stream: false },
  reasoning_options: { think: true },
});

const USER: Message[] = [{ role: 'user', content: 'hi' }];

describe('create_ollama_provider: the Ollama mapping (the rest is the contract suite)', () => {
  it('streams text, sends the mapped request and reads the token counts', async () => {
    ollama.server.enqueue({
      text: 'Hello there, wörld 🙂',
      chunk_chars: 4,
      usage: { input_tokens: 26, output_tokens: 9 },
    });
    const { result, deltas, request } = await ollama.chat(
      [{ role: 'system', content: 'be brief' }, ...USER],
      {
        config: {
          temperature: 0.1,
          max_tokens: 300,
          options: { keep_alive: '10m', model_options: { num_ctx: 32_768 } },
        },
      },
    );
    expect(deltas.map((delta) => delta.text).join('')).toBe('Hello there, wörld 🙂');
    expect(result).toEqual({
      message: { role: 'assistant', content: 'Hello there, wörld 🙂' },
      finish_reason: 'stop',
      usage: { input_tokens: 26, output_tokens: 9 },
      provider: 'ollama',
      model: 'qwen3:8b',
    });
    expect(request?.path).toBe('/api/chat');
    expect(request?.headers).not.toHaveProperty('authorization');
    expect(request?.body).toEqual({
      model: 'qwen3:8b',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
      options: { num_ctx: 32_768, temperature: 0.1, num_predict: 300 },
      keep_alive: '10m',
    });
  });

  it('sends think when asked to think', async () => {
    ollama.server.enqueue({ reasoning: 'Let me think.', text: 'Done.' });
    const { request } = await ollama.chat(USER, { config: { options: { think: true } } });
    expect(request?.body).toMatchObject({ think: true });
  });

  it('sends a tool-using history with object arguments and tool_name', async () => {
    ollama.server.enqueue({ text: 'Cold.' });
    const history: Message[] = [
      ...USER,
      {
        role: 'assistant',
        content: '',
        reasoning: 'check it',
        tool_calls: [
          { id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
          { id: 'call_2', name: 'clock', arguments: '{}' },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '-3 C' },
      { role: 'tool', tool_call_id: 'call_2', content: 'no clock', is_error: true },
    ];
    const { request } = await ollama.chat(history, { tools: [WEATHER_TOOL] });
    expect(request?.body).toHaveProperty('messages', [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: '',
        thinking: 'check it',
        tool_calls: [
          { function: { name: 'weather', arguments: { city: 'Oslo' } } },
          { function: { name: 'clock', arguments: {} } },
        ],
      },
      { role: 'tool', content: '-3 C', tool_name: 'weather' },
      { role: 'tool', content: 'no clock', tool_name: 'clock' },
    ]);
  });

  it('reads a recorded stream split into small writes', async () => {
    ollama.server.enqueue({
      kind: 'replay',
      fixture: 'ollama_thinking_tool_call.ndjson',
      write_bytes: 5,
    });
    const { result, deltas } = await ollama.chat(USER);
    expect(deltas.every((delta) => delta.kind === 'reasoning')).toBe(true);
    expect(
      result.message.tool_calls?.map((call) => [call.name, JSON.parse(call.arguments)]),
    ).toEqual([['get_current_weather', { format: 'celsius', location: 'Toronto' }]]);
    expect(result.usage).toEqual({ input_tokens: 217, output_tokens: 61 });
  });
});

describe('Ollama errors (the rest is the contract suite)', () => {
  it('rejects a non-JSON line and a nameless tool call as parse errors', async () => {
    ollama.server.enqueue({
      kind: 'raw',
      chunks: ['{"message":{"role":"assistant","content":"a"},"done":false}\n', 'not json\n'],
      chunk_delay_ms: 50,
    });
    expect((await ollama.failure()).error).toMatchObject({ kind: 'parse', delivered: true });
    ollama.server.enqueue({
      kind: 'raw',
      chunks: [
        '{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"arguments":{}}}]},"done":false}\n',
      ],
    });
    expect((await ollama.failure()).error.message).toContain('no function name');
  });

  it("says an unterminated stream lacked Ollama's done: true line", async () => {
    ollama.server.enqueue({ text: 'partial answer', unterminated: true });
    expect((await ollama.failure()).error.message).toContain('done: true');
  });

  it('refuses a bad option when built', () => {
    expect(() =>
      create_ollama_provider({ kind: 'ollama', model: 'm', options: { think: 'maximum' } }),
    ).toThrow(/options.think/);
  });
});

describe('pictures', () => {
  it('sends a picture in a user message and in a tool result in the wire shape of its API', async () => {
    ollama.server.enqueue({ text: 'a red dot' });
    const { request } = await ollama.chat(picture_conversation());
    expect(request?.body).toMatchObject({
      messages: [
        { role: 'user', content: 'what is wrong here', images: [TINY_PNG_BASE64] },
        { role: 'assistant', content: '' },
        { role: 'tool', content: 'a picture', tool_name: 'read_file' },
        { role: 'user', content: 'The pictures the tools returned.', images: [TINY_PNG_BASE64] },
      ],
    });
  });
});
