import type { ChatDelta, ChatOptions, Message, ToolDefinition } from '@lich/core';
import type { ProviderConfig } from '@lich/providers';
import { type FakeServer, start_anthropic_server } from '@lich/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANTHROPIC_KIND, create_anthropic_provider } from '../src/index.js';

let server: FakeServer;

beforeAll(async () => {
  server = await start_anthropic_server();
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
  const provider = create_anthropic_provider({
    kind: ANTHROPIC_KIND,
    model: 'claude-test',
    base_url: server.base_url,
    api_key: 'sk-ant-test',
    ...options.config,
  });
  const result = await provider.chat(messages, options.tools ?? [], {
    on_delta: (delta) => deltas.push(delta),
    ...options,
  });
  return { result, deltas, request: server.requests[server.requests.length - 1] };
}

const USER: Message[] = [{ role: 'user', content: 'hi' }];

describe('create_anthropic_provider against the fake server', () => {
  it('streams text, sends the auth headers, system and max_tokens, and reads cache usage', async () => {
    server.enqueue({
      text: 'Hello there, wörld 🙂',
      chunk_chars: 4,
      usage: { input_tokens: 10, output_tokens: 6, cache_read_tokens: 100, cache_write_tokens: 20 },
    });
    const { result, deltas, request } = await chat(
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
      system: 'be brief',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      stream: true,
      temperature: 0.3,
    });
  });

  it('answers without streaming when options.stream is false', async () => {
    server.enqueue({ text: 'plain', reasoning: 'thought', reasoning_signature: 'sig-x' });
    const { result, deltas, request } = await chat(USER, {
      max_tokens: 100,
      config: { options: { stream: false } },
    });
    expect(deltas).toEqual([]);
    expect(request?.body).toMatchObject({ stream: false, max_tokens: 100 });
    expect(result.message).toEqual({
      role: 'assistant',
      content: 'plain',
      reasoning: 'thought',
      reasoning_parts: [{ text: 'thought', signature: 'sig-x' }],
    });
  });

  it('joins parallel tool calls whose input arrives in pieces, and sends tools', async () => {
    server.enqueue({
      text: 'Checking both.',
      tool_calls: [
        { id: 'toolu_a', name: 'weather', arguments: { city: 'Oslo' } },
        { id: 'toolu_b', name: 'weather', arguments: { city: 'Rome' } },
      ],
      argument_pieces: 4,
    });
    const { result, request } = await chat(USER, { tools: TOOLS });
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
        { name: 'weather', description: 'Current weather', input_schema: TOOLS[0]?.parameters },
      ],
    });
  });

  it('streams thinking with its signature and sends it back on the next turn', async () => {
    server.enqueue({
      reasoning: 'Need the weather first.',
      reasoning_signature: 'EqQBCgIYAhIM-signature',
      redacted_reasoning: 'opaque-redacted',
      tool_calls: [{ id: 'toolu_1', name: 'weather', arguments: { city: 'Oslo' } }],
    });
    const thinking = { type: 'enabled', budget_tokens: 10_000 };
    const first = await chat(USER, {
      tools: TOOLS,
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

    server.enqueue({ text: 'It is -3 C in Oslo.' });
    const history: Message[] = [
      ...USER,
      first.result.message,
      { role: 'tool', tool_call_id: 'toolu_1', content: '-3 C' },
    ];
    const second = await chat(history, { tools: TOOLS, config: { options: { thinking } } });
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
    server.enqueue({ text: 'ok' });
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
    const { request } = await chat(history, { tools: TOOLS });
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
    server.enqueue({ text: 'Wrapping up.' });
    const history: Message[] = [
      ...USER,
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'toolu_a', name: 'weather', arguments: '{}' }],
      },
      { role: 'tool', tool_call_id: 'toolu_a', content: '-3 C' },
    ];
    const { request } = await chat(history);
    expect(request?.body).toMatchObject({
      tools: [{ name: 'weather', input_schema: { type: 'object' } }],
      tool_choice: { type: 'none' },
    });
  });

  it('reads a recorded stream with thinking, a ping and a tool call', async () => {
    server.enqueue({ kind: 'replay', fixture: 'anthropic_thinking_tool_use.sse', write_bytes: 13 });
    const { result, deltas } = await chat(USER);
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
