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
import { ANTHROPIC_KIND, create_anthropic_provider } from '../src/index.js';

const anthropic = provider_contract_suite({
  format: 'anthropic',
  kind: ANTHROPIC_KIND,
  create: (config: Partial<ProviderConfig> & ContractConfig) =>
    create_anthropic_provider({
      kind: ANTHROPIC_KIND,
      model: 'claude-test',
      api_key: 'sk-ant-test',
      ...config,
    }),
  no_stream_options: { stream: false },
  reasoning_options: { thinking: { type: 'enabled', budget_tokens: 1024 } },
  key_env: 'ANTHROPIC_API_KEY',
});

const USER: Message[] = [{ role: 'user', content: 'hi' }];

describe('create_anthropic_provider against the fake server', () => {
  it('streams text, sends the auth headers, system and max_tokens, and reads cache usage', async () => {
    anthropic.server.enqueue({
      text: 'Hello there, wörld 🙂',
      chunk_chars: 4,
      usage: { input_tokens: 10, output_tokens: 6, cache_read_tokens: 100, cache_write_tokens: 20 },
    });
    const { result, deltas, request } = await anthropic.chat(
      [{ role: 'system', content: 'be brief' }, ...USER],
      { config: { temperature: 0.3 } },
    );
    expect(deltas.map((delta) => delta.text).join('')).toBe('Hello there, wörld 🙂');
    expect(deltas.every((delta) => delta.kind === 'text')).toBe(true);
    expect(result).toEqual({
      message: { role: 'assistant', content: 'Hello there, wörld 🙂' },
      finish_reason: 'stop',
      usage: {
        input_tokens: 130,
        output_tokens: 6,
        cache_read_tokens: 100,
        cache_write_tokens: 20,
      },
      provider: 'anthropic',
      model: 'claude-test',
    });
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers['x-api-key']).toBe('sk-ant-test');
    expect(request?.headers['anthropic-version']).toBe('2023-06-01');
    expect(request?.headers).not.toHaveProperty('authorization');
    expect(request?.body).toEqual({
      model: 'claude-test',
      max_tokens: 8192,
      // prompt caching is on by default: breakpoints on the system prompt and the newest message
      system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }],
        },
      ],
      stream: true,
      temperature: 0.3,
    });
    expect(request?.headers).not.toHaveProperty('anthropic-beta');
  });

  it('keeps a non-streamed thinking block with its signature, and the call max_tokens', async () => {
    anthropic.server.enqueue({ text: 'plain', reasoning: 'thought', reasoning_signature: 'sig-x' });
    const { result, request } = await anthropic.chat(USER, {
      max_tokens: 100,
      config: { options: { stream: false } },
    });
    expect(request?.body).toMatchObject({ stream: false, max_tokens: 100 });
    expect(result.message).toEqual({
      role: 'assistant',
      content: 'plain',
      reasoning: 'thought',
      reasoning_parts: [{ text: 'thought', signature: 'sig-x' }],
    });
  });

  it('joins parallel tool calls whose input arrives in pieces, and sends tools', async () => {
    anthropic.server.enqueue({
      text: 'Checking both.',
      tool_calls: [
        { id: 'toolu_a', name: 'weather', arguments: { city: 'Oslo' } },
        { id: 'toolu_b', name: 'weather', arguments: { city: 'Rome' } },
      ],
      argument_pieces: 4,
    });
    const { result, request } = await anthropic.chat(USER, { tools: [WEATHER_TOOL] });
    expect(result.finish_reason).toBe('tool_calls');
    expect(result.message.content).toBe('Checking both.');
    expect(
      result.message.tool_calls?.map((call) => [call.id, call.name, JSON.parse(call.arguments)]),
    ).toEqual([
      ['toolu_a', 'weather', { city: 'Oslo' }],
      ['toolu_b', 'weather', { city: 'Rome' }],
    ]);
    expect(request?.body).toMatchObject({
      tools: [
        { name: 'weather', description: 'Current weather', input_schema: WEATHER_TOOL.parameters },
      ],
    });
  });

  it('streams thinking with its signature and sends it back on the next turn', async () => {
    anthropic.server.enqueue({
      reasoning: 'Need the weather first.',
      reasoning_signature: 'EqQBCgIYAhIM-signature',
      redacted_reasoning: 'opaque-redacted',
      tool_calls: [{ id: 'toolu_1', name: 'weather', arguments: { city: 'Oslo' } }],
    });
    const thinking = { type: 'enabled', budget_tokens: 10_000 };
    const first = await anthropic.chat(USER, {
      tools: [WEATHER_TOOL],
      config: { temperature: 0.5, options: { thinking } },
    });
    expect(
      first.deltas
        .filter((delta) => delta.kind === 'reasoning')
        .map((delta) => delta.text)
        .join(''),
    ).toBe('Need the weather first.');
    expect(first.result.message.reasoning_parts).toEqual([
      { text: 'Need the weather first.', signature: 'EqQBCgIYAhIM-signature' },
      { text: '', redacted: 'opaque-redacted' },
    ]);
    expect(first.request?.body).toMatchObject({ thinking, max_tokens: 18_192 });
    expect(first.request?.body).not.toHaveProperty('temperature');

    anthropic.server.enqueue({ text: 'It is -3 C in Oslo.' });
    const history: Message[] = [
      ...USER,
      first.result.message,
      { role: 'tool', tool_call_id: 'toolu_1', content: '-3 C' },
    ];
    const second = await anthropic.chat(history, {
      tools: [WEATHER_TOOL],
      config: { options: { thinking }, cache: { enabled: false } },
    });
    expect(second.request?.body).toHaveProperty('messages', [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'thinking',
            thinking: 'Need the weather first.',
            signature: 'EqQBCgIYAhIM-signature',
          },
          { type: 'redacted_thinking', data: 'opaque-redacted' },
          { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '-3 C' }] },
    ]);
  });

  it('merges parallel tool results into one user message, with is_error', async () => {
    anthropic.server.enqueue({ text: 'ok' });
    const history: Message[] = [
      ...USER,
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'toolu_a', name: 'weather', arguments: '{"city":"Oslo"}' },
          { id: 'toolu_b', name: 'weather', arguments: '{"city":"Rome"}' },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_a', content: '-3 C' },
      { role: 'tool', tool_call_id: 'toolu_b', content: 'service down', is_error: true },
    ];
    const { request } = await anthropic.chat(history, {
      tools: [WEATHER_TOOL],
      config: { cache: { enabled: false } },
    });
    const messages = (request?.body as { messages: unknown[] } | undefined)?.messages;
    expect(messages?.[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_a', content: '-3 C' },
        { type: 'tool_result', tool_use_id: 'toolu_b', content: 'service down', is_error: true },
      ],
    });
  });

  it('declares the tools a history used when a call offers none (the grace call)', async () => {
    anthropic.server.enqueue({ text: 'Wrapping up.' });
    const history: Message[] = [
      ...USER,
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'toolu_a', name: 'weather', arguments: '{}' }],
      },
      { role: 'tool', tool_call_id: 'toolu_a', content: '-3 C' },
    ];
    const { request } = await anthropic.chat(history);
    expect(request?.body).toMatchObject({
      tools: [{ name: 'weather', input_schema: { type: 'object' } }],
      tool_choice: { type: 'none' },
    });
  });

  it('reads a recorded stream with thinking, a ping and a tool call', async () => {
    anthropic.server.enqueue({
      kind: 'replay',
      fixture: 'anthropic_thinking_tool_use.sse',
      write_bytes: 13,
    });
    const { result, deltas } = await anthropic.chat(USER);
    expect(deltas[0]?.kind).toBe('reasoning');
    expect(result.finish_reason).toBe('tool_calls');
    expect(result.message.content).toBe("I'll check the current weather in Paris for you.");
    expect(result.message.reasoning_parts?.[0]?.signature).toBeTruthy();
    expect(
      result.message.tool_calls?.map((call) => [call.name, JSON.parse(call.arguments)]),
    ).toEqual([['get_weather', { city: 'Paris', unit: 'celsius' }]]);
    expect(result.usage).toMatchObject({ cache_read_tokens: 1840, output_tokens: 89 });
  });
});

describe('Anthropic errors (the rest is the contract suite)', () => {
  it('maps an error status with its type, message, request id and retry-after', async () => {
    anthropic.server.enqueue({ kind: 'status', status: 529, retry_after: 3 });
    const { error } = await anthropic.failure();
    expect(error).toMatchObject({
      kind: 'http',
      provider: 'anthropic',
      model: 'claude-test',
      status: 529,
      code: 'overloaded_error',
      retry_after_ms: 3000,
      retryable: true,
    });
    expect(error.request_id).toMatch(/^req_/);
    expect(error.message).toContain('anthropic (claude-test): HTTP 529 overloaded_error');

    anthropic.server.enqueue({
      kind: 'status',
      status: 400,
      message: 'messages: roles must alternate',
    });
    expect((await anthropic.failure()).error).toMatchObject({
      status: 400,
      code: 'invalid_request_error',
      provider_message: 'messages: roles must alternate',
      retryable: false,
    });
  });

  it('turns an overloaded_error event after the 200 into a retryable error, marked delivered', async () => {
    anthropic.server.enqueue({
      text: 'Partial',
      error_event: { type: 'overloaded_error', message: 'Overloaded' },
    });
    const { error, deltas } = await anthropic.failure();
    expect(deltas.map((delta) => delta.text).join('')).toBe('Partial');
    expect(error).toMatchObject({
      kind: 'http',
      status: 529,
      code: 'overloaded_error',
      provider_message: 'Overloaded',
      retryable: true,
      delivered: true,
    });
  });

  it('rejects a non-JSON event and malformed SSE as parse errors', async () => {
    anthropic.server.enqueue({ kind: 'raw', chunks: ['event: message_start\ndata: {nope\n\n'] });
    expect((await anthropic.failure()).error.kind).toBe('parse');
    anthropic.server.enqueue({ kind: 'raw', chunks: ['<!DOCTYPE html>\n<p>hi</p>\n'] });
    expect((await anthropic.failure()).error.kind).toBe('parse');
  });

  it('rejects a tool_use block with no name', async () => {
    anthropic.server.enqueue({
      kind: 'raw',
      chunks: [
        'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1}}}\n\n',
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","input":{}}}\n\n',
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"}}\n\n',
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      ],
    });
    expect((await anthropic.failure()).error).toMatchObject({ kind: 'parse' });
  });

  it('names message_stop for an unterminated stream', async () => {
    anthropic.server.enqueue({ text: 'partial answer', unterminated: true });
    expect((await anthropic.failure()).error.message).toContain('message_stop');
  });

  it('refuses a bad option when built', () => {
    expect(() =>
      create_anthropic_provider({ kind: 'anthropic', model: 'm', options: { thinking: 'on' } }),
    ).toThrow(/options.thinking/);
  });
});

describe('pictures', () => {
  it('sends a picture in a user message and in a tool result in the wire shape of its API', async () => {
    anthropic.server.enqueue({ text: 'a red dot' });
    const { request } = await anthropic.chat(picture_conversation(), {
      config: { cache: { enabled: false } },
    });
    expect(request?.body).toMatchObject({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is wrong here' },
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: TINY_PNG_BASE64 },
            },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'read_file' }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'call_1',
              content: [
                { type: 'text', text: 'a picture' },
                {
                  type: 'image',
                  source: { type: 'base64', media_type: 'image/png', data: TINY_PNG_BASE64 },
                },
              ],
            },
          ],
        },
      ],
    });
  });
});
