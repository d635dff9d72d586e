import type { ChatDelta, ChatOptions, Message, ToolDefinition } from '@lich/core';
import type { ProviderConfig } from '@lich/providers';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create_openai_provider, OPENAI_COMPAT_KIND } from '../src/index.js';

let server: FakeServer;
let openrouter: FakeServer;

beforeAll(async () => {
  server = await start_openai_server();
  openrouter = await start_openai_server({ reasoning_field: 'reasoning' });
});

afterAll(async () => {
  await server.close();
  await openrouter.close();
});

const TOOLS: ToolDefinition[] = [
  {
    name: 'weather',
    description: 'Current weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

function provider(overrides: Partial<ProviderConfig> = {}, target = server) {
  return create_openai_provider({
    kind: OPENAI_COMPAT_KIND,
    model: 'gpt-test',
    base_url: target.base_url,
    api_key: 'sk-test',
    ...overrides,
  });
}

async function chat(
  messages: Message[],
  options: ChatOptions & {
    config?: Partial<ProviderConfig>;
    target?: FakeServer;
    tools?: ToolDefinition[];
  } = {},
) {
  const deltas: ChatDelta[] = [];
  const result = await provider(options.config, options.target).chat(
    messages,
    options.tools ?? [],
    {
      on_delta: (delta) => deltas.push(delta),
      ...options,
    },
  );
  const target = options.target ?? server;
  return { result, deltas, request: target.requests[target.requests.length - 1] };
}

const USER: Message[] = [{ role: 'user', content: 'hi' }];

describe('create_openai_provider against the fake server', () => {
  it('streams text, sends auth and the mapped request, and reads usage', async () => {
    server.enqueue({
      text: 'Hello there, wörld 🙂',
      chunk_chars: 3,
      usage: { input_tokens: 30, output_tokens: 7, cache_read_tokens: 12 },
    });
    const { result, deltas, request } = await chat(
      [{ role: 'system', content: 'be brief' }, ...USER],
      { config: { max_tokens: 256, temperature: 0.2, headers: { 'x-extra': '1' } } },
    );
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.every((delta) => delta.kind === 'text')).toBe(true);
    expect(deltas.map((delta) => delta.text).join('')).toBe('Hello there, wörld 🙂');
    expect(result).toEqual({
      message: { role: 'assistant', content: 'Hello there, wörld 🙂' },
      finish_reason: 'stop',
      usage: { input_tokens: 30, output_tokens: 7, cache_read_tokens: 12 },
      provider: 'openai_compat',
      model: 'gpt-test',
    });
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    expect(request?.headers['x-extra']).toBe('1');
    expect(request?.body).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 256,
      temperature: 0.2,
    });
  });

  it('answers without streaming when options.stream is false', async () => {
    server.enqueue({
      text: 'plain answer',
      reasoning: 'short thought',
      usage: { input_tokens: 4, output_tokens: 2 },
    });
    const { result, deltas, request } = await chat(USER, {
      config: { options: { stream: false } },
    });
    expect(deltas).toEqual([]);
    expect(request?.body).toMatchObject({ stream: false });
    expect(request?.body).not.toHaveProperty('stream_options');
    expect(result.message).toEqual({
      role: 'assistant',
      content: 'plain answer',
      reasoning: 'short thought',
    });
    expect(result.usage).toEqual({ input_tokens: 4, output_tokens: 2 });
  });

  it('joins parallel tool calls whose arguments arrive in pieces, and sends tools', async () => {
    server.enqueue({
      tool_calls: [
        { id: 'call_a', name: 'weather', arguments: { city: 'Oslo', unit: 'celsius' } },
        { id: 'call_b', name: 'weather', arguments: '{"city":"Rome"}' },
      ],
      argument_pieces: 5,
    });
    const { result, deltas, request } = await chat(USER, { tools: TOOLS });
    expect(deltas).toEqual([]);
    expect(result.finish_reason).toBe('tool_calls');
    expect(result.message.tool_calls).toEqual([
      { id: 'call_a', name: 'weather', arguments: '{"city":"Oslo","unit":"celsius"}' },
      { id: 'call_b', name: 'weather', arguments: '{"city":"Rome"}' },
    ]);
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

  it('sends a tool-using history in the wire shape', async () => {
    server.enqueue({ text: 'Oslo is cold.' });
    const history: Message[] = [
      ...USER,
      {
        role: 'assistant',
        content: '',
        reasoning: 'look it up',
        tool_calls: [
          { id: 'call_a', name: 'weather', arguments: '{"city":"Oslo"}' },
          { id: 'call_b', name: 'weather', arguments: '{"city":"Rome"}' },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', name: 'weather', content: '-3 C' },
      { role: 'tool', tool_call_id: 'call_b', name: 'weather', content: 'failed', is_error: true },
    ];
    const { request } = await chat(history, {
      tools: TOOLS,
      config: { options: { send_reasoning: 'reasoning_content' } },
    });
    expect(request?.body).toHaveProperty('messages', [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'look it up',
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Oslo"}' },
          },
          {
            id: 'call_b',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '-3 C' },
      { role: 'tool', tool_call_id: 'call_b', content: 'failed' },
    ]);
  });

  it('streams reasoning_content and OpenRouter reasoning as reasoning deltas', async () => {
    server.enqueue({ reasoning: 'Two plus two.', text: '4', usage: { reasoning_tokens: 5 } });
    const first = await chat(USER);
    expect(first.deltas[0]).toEqual({ kind: 'reasoning', text: 'Two plus' });
    expect(first.result.message).toMatchObject({ content: '4', reasoning: 'Two plus two.' });
    expect(first.result.usage?.reasoning_tokens).toBe(5);

    openrouter.enqueue({ reasoning: 'Thinking hard.', text: 'Done' });
    const second = await chat(USER, { target: openrouter });
    expect(
      second.deltas
        .filter((delta) => delta.kind === 'reasoning')
        .map((delta) => delta.text)
        .join(''),
    ).toBe('Thinking hard.');
    expect(second.result.message.reasoning).toBe('Thinking hard.');
  });

  it('reads recorded streams: parallel tool calls and OpenRouter reasoning', async () => {
    server.enqueue({ kind: 'replay', fixture: 'openai_parallel_tool_calls.sse', write_bytes: 7 });
    const tools = await chat(USER);
    expect(tools.result.finish_reason).toBe('tool_calls');
    expect(
      tools.result.message.tool_calls?.map((call) => [call.name, JSON.parse(call.arguments)]),
    ).toEqual([
      ['get_weather', { city: 'Paris', unit: 'celsius' }],
      ['get_weather', { city: 'Tōkyō', unit: 'celsius' }],
    ]);
    expect(tools.result.usage).toMatchObject({ input_tokens: 88, output_tokens: 52 });
    expect(tools.result.model).toBe('gpt-4o-2024-08-06');

    server.enqueue({ kind: 'replay', fixture: 'openrouter_reasoning.sse' });
    const reasoning = await chat(USER);
    expect(reasoning.result.message.reasoning).toBe('The user asks for 2+2. Simple arithmetic: 4.');
    expect(reasoning.result.message.content).toBe('2 + 2 = **4** — façile, n’est-ce pas? 🙂');
    expect(reasoning.result.usage).toEqual({
      input_tokens: 14,
      output_tokens: 31,
      reasoning_tokens: 17,
    });
  });

  it('survives a stream written one byte at a time', async () => {
    server.enqueue({ text: 'añadir 🙂 ok', reasoning: 'ü', write_bytes: 1 });
    const { result } = await chat(USER);
    expect(result.message).toMatchObject({ content: 'añadir 🙂 ok', reasoning: 'ü' });
  });

  it('honours include_usage, max_tokens_field and extra_body', async () => {
    server.enqueue({ text: 'x' });
    const { request } = await chat(USER, {
      max_tokens: 99,
      config: {
        max_tokens: 5,
        options: {
          include_usage: false,
          max_tokens_field: 'max_completion_tokens',
          extra_body: { reasoning_effort: 'low' },
        },
      },
    });
    expect(request?.body).toEqual({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      max_completion_tokens: 99,
      reasoning_effort: 'low',
    });
  });
});
