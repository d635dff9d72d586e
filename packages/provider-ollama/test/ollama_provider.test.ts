import type { ChatDelta, ChatOptions, Message, ToolDefinition } from '@lich/core';
import type { ProviderConfig } from '@lich/providers';
import { type FakeServer, start_ollama_server } from '@lich/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create_ollama_provider, OLLAMA_KIND } from '../src/index.js';

let server: FakeServer;

beforeAll(async () => {
  server = await start_ollama_server();
});

afterAll(async () => {
  await server.close();
});

const TOOLS: ToolDefinition[] = [
  {
    name: 'weather',
    description: 'Current weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

async function chat(
  messages: Message[],
  options: ChatOptions & { config?: Partial<ProviderConfig>; tools?: ToolDefinition[] } = {},
) {
  const deltas: ChatDelta[] = [];
  const provider = create_ollama_provider({
    kind: OLLAMA_KIND,
    model: 'qwen3:8b',
    base_url: server.base_url,
    ...options.config,
  });
  const result = await provider.chat(messages, options.tools ?? [], {
    on_delta: (delta) => deltas.push(delta),
    ...options,
  });
  return { result, deltas, request: server.requests[server.requests.length - 1] };
}

const USER: Message[] = [{ role: 'user', content: 'hi' }];

describe('create_ollama_provider against the fake server', () => {
  it('streams text, sends the mapped request and reads the token counts', async () => {
    server.enqueue({
      text: 'Hello there, wörld 🙂',
      chunk_chars: 4,
      usage: { input_tokens: 26, output_tokens: 9 },
    });
    const { result, deltas, request } = await chat(
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

  it('answers without streaming when options.stream is false', async () => {
    server.enqueue({ text: 'plain', reasoning: 'thought' });
    const { result, deltas, request } = await chat(USER, {
      config: { options: { stream: false } },
    });
    expect(deltas).toEqual([]);
    expect(request?.body).toMatchObject({ stream: false });
    expect(result.message).toEqual({ role: 'assistant', content: 'plain', reasoning: 'thought' });
  });

  it('streams thinking when asked to think', async () => {
    server.enqueue({ reasoning: 'Let me think.', text: 'Done.' });
    const { result, deltas, request } = await chat(USER, { config: { options: { think: true } } });
    expect(request?.body).toMatchObject({ think: true });
    expect(deltas[0]).toEqual({ kind: 'reasoning', text: 'Let me t' });
    expect(result.message).toMatchObject({ content: 'Done.', reasoning: 'Let me think.' });
  });

  it('returns parallel tool calls with ids, and sends tools', async () => {
    server.enqueue({
      tool_calls: [
        { name: 'weather', arguments: { city: 'Oslo' } },
        { name: 'weather', arguments: { city: 'Rome' } },
      ],
    });
    const { result, request } = await chat(USER, { tools: TOOLS });
    expect(result.finish_reason).toBe('tool_calls');
    const calls = result.message.tool_calls ?? [];
    expect(calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ['weather', { city: 'Oslo' }],
      ['weather', { city: 'Rome' }],
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    expect(request?.body).toMatchObject({
      tools: [
        {
          type: 'function',
          function: {
            name: 'weather',
            description: 'Current weather',
            parameters: TOOLS[0]?.parameters,
          },
        },
      ],
    });
  });

  it('sends a tool-using history with object arguments and tool_name', async () => {
    server.enqueue({ text: 'Cold.' });
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
    const { request } = await chat(history, { tools: TOOLS });
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
    server.enqueue({ kind: 'replay', fixture: 'ollama_thinking_tool_call.ndjson', write_bytes: 5 });
    const { result, deltas } = await chat(USER);
    expect(deltas.every((delta) => delta.kind === 'reasoning')).toBe(true);
    expect(
      result.message.tool_calls?.map((call) => [call.name, JSON.parse(call.arguments)]),
    ).toEqual([['get_current_weather', { format: 'celsius', location: 'Toronto' }]]);
    expect(result.usage).toEqual({ input_tokens: 217, output_tokens: 61 });
  });
});
