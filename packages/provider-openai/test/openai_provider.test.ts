import type { Message } from '@lich/core';
import type { ProviderConfig } from '@lich/providers';
import {
  type ContractConfig,
  type FakeServer,
  picture_conversation,
  provider_contract_suite,
  start_openai_server,
  TINY_PNG_BASE64,
  WEATHER_TOOL,
} from '@lich/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create_openai_provider, OPENAI_COMPAT_KIND } from '../src/index.js';
import { build_openai_request } from '../src/openai_provider.js';
import { read_openai_settings } from '../src/openai_settings.js';

const openai = provider_contract_suite({
  format: 'openai',
  kind: OPENAI_COMPAT_KIND,
  create: (config: Partial<ProviderConfig> & ContractConfig) =>
    create_openai_provider({
      kind: OPENAI_COMPAT_KIND,
      model: 'gpt-test',
      api_key: 'sk-test',
      ...config,
    }),
  no_stream_options: { stream: false },
  key_env: 'OPENAI_API_KEY',
});

/** OpenRouter names the reasoning field `reasoning`. */
let openrouter: FakeServer;

beforeAll(async () => {
  openrouter = await start_openai_server({ reasoning_field: 'reasoning' });
});

afterAll(async () => {
  await openrouter.close();
});

const USER: Message[] = [{ role: 'user', content: 'hi' }];

describe('create_openai_provider: the OpenAI mapping (the rest is the contract suite)', () => {
  it('streams text, sends auth and the mapped request, and reads usage', async () => {
    openai.server.enqueue({
      text: 'Hello there, wörld 🙂',
      chunk_chars: 3,
      usage: { input_tokens: 30, output_tokens: 7, cache_read_tokens: 12 },
    });
    const { result, deltas, request } = await openai.chat(
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

  it('asks for no stream_options when it does not stream, and reads reasoning from the body', async () => {
    openai.server.enqueue({ text: 'plain answer', reasoning: 'short thought' });
    const { result, request } = await openai.chat(USER, { config: { options: { stream: false } } });
    expect(request?.body).toMatchObject({ stream: false });
    expect(request?.body).not.toHaveProperty('stream_options');
    expect(result.message).toEqual({
      role: 'assistant',
      content: 'plain answer',
      reasoning: 'short thought',
    });
  });

  it('joins parallel tool calls whose arguments arrive in pieces, and sends tools', async () => {
    openai.server.enqueue({
      tool_calls: [
        { id: 'call_a', name: 'weather', arguments: { city: 'Oslo', unit: 'celsius' } },
        { id: 'call_b', name: 'weather', arguments: '{"city":"Rome"}' },
      ],
      argument_pieces: 5,
    });
    const { result, deltas, request } = await openai.chat(USER, { tools: [WEATHER_TOOL] });
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
            parameters: WEATHER_TOOL.parameters,
          },
        },
      ],
    });
  });

  it('sends a tool-using history in the wire shape', async () => {
    openai.server.enqueue({ text: 'Oslo is cold.' });
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
    const { request } = await openai.chat(history, {
      tools: [WEATHER_TOOL],
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

  it('sends each call the whole history, byte for byte, as it grows and after it is rewritten', async () => {
    const config: ProviderConfig = {
      kind: OPENAI_COMPAT_KIND,
      model: 'gpt-test',
      base_url: openai.server.base_url,
      options: { include_usage: true },
    };
    const provider = create_openai_provider(config);
    const settings = read_openai_settings(config);
    const system: Message = { role: 'system', content: 'be brief' };
    let history: Message[] = [system, { role: 'user', content: 'read a.txt ✓' }];
    const expected: string[] = [];
    const before = openai.server.requests.length;
    for (let turn = 0; turn < 6; turn++) {
      if (turn === 4) history = [system, { role: 'user', content: 'summary: read a.txt 4 times' }];
      openai.server.enqueue({ text: `answer ${turn}` });
      await provider.chat(history, [WEATHER_TOOL]);
      expected.push(
        JSON.stringify(build_openai_request(config, settings, history, [WEATHER_TOOL])),
      );
      const call = { id: `call_${turn}`, name: 'weather', arguments: '{"city":"Oslo"}' };
      history = [
        ...history,
        { role: 'assistant', content: '', tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, name: 'weather', content: `"${turn}" °C` },
      ];
    }
    const sent = openai.server.requests.slice(before).map((request) => request.raw_body);
    expect(sent).toEqual(expected);
  });

  it('sends what the messages and tools say now, also when they were changed in place', async () => {
    const provider = create_openai_provider({
      kind: OPENAI_COMPAT_KIND,
      model: 'gpt-test',
      base_url: openai.server.base_url,
    });
    const history: Message[] = [{ role: 'user', content: 'first words' }];
    const tools = [WEATHER_TOOL];
    openai.server.enqueue({ text: 'one' }, { text: 'two' });
    await provider.chat(history, tools);
    // nothing in the contract forbids it: a caller may edit a message or the tool list it owns
    (history[0] as { content: string }).content = 'edited words';
    tools.push({ ...WEATHER_TOOL, name: 'clock' });
    await provider.chat(history, tools);
    const body = openai.server.requests.at(-1)?.body as {
      messages: { content: string }[];
      tools: { function: { name: string } }[];
    };
    expect(body.messages[0]?.content).toBe('edited words');
    expect(body.tools.map((tool) => tool.function.name)).toEqual(['weather', 'clock']);
  });

  it('reads reasoning_tokens, and OpenRouter reasoning as reasoning deltas', async () => {
    openai.server.enqueue({
      reasoning: 'Two plus two.',
      text: '4',
      usage: { reasoning_tokens: 5 },
    });
    const first = await openai.chat(USER);
    expect(first.result.usage?.reasoning_tokens).toBe(5);

    openrouter.enqueue({ reasoning: 'Thinking hard.', text: 'Done' });
    const second = await openai.chat(USER, { server: openrouter });
    expect(
      second.deltas
        .filter((delta) => delta.kind === 'reasoning')
        .map((delta) => delta.text)
        .join(''),
    ).toBe('Thinking hard.');
    expect(second.result.message.reasoning).toBe('Thinking hard.');
  });

  it('reads recorded streams: parallel tool calls and OpenRouter reasoning', async () => {
    openai.server.enqueue({
      kind: 'replay',
      fixture: 'openai_parallel_tool_calls.sse',
      write_bytes: 7,
    });
    const tools = await openai.chat(USER);
    expect(tools.result.finish_reason).toBe('tool_calls');
    expect(
      tools.result.message.tool_calls?.map((call) => [call.name, JSON.parse(call.arguments)]),
    ).toEqual([
      ['get_weather', { city: 'Paris', unit: 'celsius' }],
      ['get_weather', { city: 'Tōkyō', unit: 'celsius' }],
    ]);
    expect(tools.result.usage).toMatchObject({ input_tokens: 88, output_tokens: 52 });
    expect(tools.result.model).toBe('gpt-4o-2024-08-06');

    openai.server.enqueue({ kind: 'replay', fixture: 'openrouter_reasoning.sse' });
    const reasoning = await openai.chat(USER);
    expect(reasoning.result.message.reasoning).toBe('The user asks for 2+2. Simple arithmetic: 4.');
    expect(reasoning.result.message.content).toBe('2 + 2 = **4** — façile, n’est-ce pas? 🙂');
    expect(reasoning.result.usage).toEqual({
      input_tokens: 14,
      output_tokens: 31,
      reasoning_tokens: 17,
    });
  });

  it('survives a stream written one byte at a time', async () => {
    openai.server.enqueue({ text: 'añadir 🙂 ok', reasoning: 'ü', write_bytes: 1 });
    const { result } = await openai.chat(USER);
    expect(result.message).toMatchObject({ content: 'añadir 🙂 ok', reasoning: 'ü' });
  });

  it('honours include_usage, max_tokens_field and extra_body', async () => {
    openai.server.enqueue({ text: 'x' });
    const { request } = await openai.chat(USER, {
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

describe('Azure OpenAI', () => {
  it('posts to the deployment with api-version and the key as api-key, or an Entra token', async () => {
    openai.server.enqueue({ text: 'from azure' }, { text: 'with entra' });
    const base_url = `${openai.server.url}/openai/deployments/prod-4o`;
    const provider = create_openai_provider({
      kind: OPENAI_COMPAT_KIND,
      model: 'gpt-4o',
      base_url,
      api_key: 'azure-key',
      options: { api_version: '2025-01-01-preview' },
    });
    const result = await provider.chat(USER, []);
    expect(result.message.content).toBe('from azure');
    const request = openai.server.requests.at(-1);
    expect(request?.path).toBe('/openai/deployments/prod-4o/chat/completions');
    expect(request?.headers['api-key']).toBe('azure-key');
    expect(request?.headers.authorization).toBeUndefined();
    const entra = create_openai_provider({
      kind: OPENAI_COMPAT_KIND,
      model: 'gpt-4o',
      base_url,
      api_key: 'entra-token',
      options: { azure_auth: 'bearer' },
    });
    await entra.chat(USER, []);
    expect(openai.server.requests.at(-1)?.headers.authorization).toBe('Bearer entra-token');
  });

  it('speaks the Responses API on Azure too, at /openai/v1/responses with the api-key', async () => {
    openai.server.enqueue({ text: 'azure responses' });
    const provider = create_openai_provider({
      kind: OPENAI_COMPAT_KIND,
      model: 'gpt-5-codex',
      base_url: `${openai.server.url}/openai/deployments/codex`,
      api_key: 'azure-key',
      options: { api: 'responses' },
    });
    expect((await provider.chat(USER, [])).message.content).toBe('azure responses');
    const request = openai.server.requests.at(-1);
    expect(request?.path).toBe('/openai/v1/responses');
    expect(request?.headers['api-key']).toBe('azure-key');
  });
});

describe('OpenAI-compatible errors (the rest is the contract suite)', () => {
  it('maps an error status with the body, request id and retry-after', async () => {
    openai.server.enqueue({
      kind: 'status',
      status: 429,
      retry_after: 2,
      message: 'Slow down please.',
      code: 'rate_limit_exceeded',
    });
    const { error } = await openai.failure();
    expect(error).toMatchObject({
      kind: 'http',
      provider: 'openai_compat',
      model: 'gpt-test',
      status: 429,
      code: 'rate_limit_exceeded',
      provider_message: 'Slow down please.',
      retry_after_ms: 2000,
      retryable: true,
      delivered: false,
    });
    expect(error.request_id).toMatch(/^req_/);
    expect(error.message).toContain(
      'openai_compat (gpt-test): HTTP 429 rate_limit_exceeded: Slow down please.',
    );
  });

  it('does not retry 401, quota errors, or what x-should-retry forbids', async () => {
    openai.server.enqueue({ kind: 'status', status: 401 });
    expect((await openai.failure()).error).toMatchObject({
      status: 401,
      retryable: false,
      code: 'invalid_api_key',
    });
    openai.server.enqueue({
      kind: 'status',
      status: 429,
      code: 'insufficient_quota',
      type: 'insufficient_quota',
    });
    expect((await openai.failure()).error).toMatchObject({
      status: 429,
      code: 'insufficient_quota',
      retryable: false,
    });
    openai.server.enqueue({ kind: 'status', status: 500, should_retry: false });
    expect((await openai.failure()).error).toMatchObject({ status: 500, retryable: false });
  });

  it('reads the flat vLLM error body', async () => {
    openai.server.enqueue({
      kind: 'status',
      status: 404,
      body: {
        object: 'error',
        message: 'The model `x` does not exist.',
        type: 'NotFoundError',
        param: null,
        code: 404,
      },
    });
    expect((await openai.failure()).error).toMatchObject({
      status: 404,
      code: 'NotFoundError',
      provider_message: 'The model `x` does not exist.',
    });
  });

  it('names the HTML page, and rejects a non-JSON chunk and a malformed SSE line as parse errors', async () => {
    openai.server.enqueue({ kind: 'html' });
    expect((await openai.failure()).error.message).toContain('502 Bad Gateway');

    openai.server.enqueue({
      kind: 'raw',
      chunks: ['data: {"choices":[{"delta":{"content":"a"}}]}\n\n', 'data: {oops\n\n'],
    });
    const chunk = await openai.failure();
    expect(chunk.error).toMatchObject({ kind: 'parse', delivered: true, retryable: false });
    expect(chunk.error.message).toContain('{oops');
    expect(chunk.deltas).toEqual([{ kind: 'text', text: 'a' }]);

    openai.server.enqueue({ kind: 'raw', chunks: ['<html><body>oops</body></html>\n'] });
    expect((await openai.failure()).error.kind).toBe('parse');
  });

  it('rejects a tool call with no name', async () => {
    openai.server.enqueue({
      kind: 'raw',
      chunks: [
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"arguments":"{}"}}]}}]}\n\n',
        'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n',
        'data: [DONE]\n\n',
      ],
    });
    const { error } = await openai.failure();
    expect(error.kind).toBe('parse');
    expect(error.message).toContain('tool call 0 has no function name');
  });

  it("names [DONE] for an unterminated stream; an error chunk keeps the API's words", async () => {
    openai.server.enqueue({ text: 'partial answer', unterminated: true });
    expect((await openai.failure()).error.message).toContain('[DONE]');
    openai.server.enqueue({ text: 'Hi', error_event: { message: 'upstream died' } });
    expect((await openai.failure()).error).toMatchObject({
      kind: 'stream',
      provider_message: 'upstream died',
      retryable: true,
    });
  });

  it('reports a reset connection as a network error', async () => {
    openai.server.enqueue({ kind: 'reset' });
    expect((await openai.failure()).error).toMatchObject({ kind: 'network', retryable: true });
  });

  it('refuses a bad base URL or option when built', () => {
    expect(() =>
      create_openai_provider({ kind: 'openai_compat', model: 'm', base_url: 'http://' }),
    ).toThrow(/base_url/);
    expect(() =>
      create_openai_provider({ kind: 'openai_compat', model: 'm', options: { stream: 'yes' } }),
    ).toThrow(/options.stream/);
  });
});

describe('pictures', () => {
  it('sends a picture in a user message and in a tool result in the wire shape of its API', async () => {
    openai.server.enqueue({ text: 'a red dot' });
    const { request } = await openai.chat(picture_conversation());
    expect(request?.body).toMatchObject({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is wrong here' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
          ],
        },
        { role: 'assistant', content: null },
        { role: 'tool', tool_call_id: 'call_1', content: 'a picture\n\n[image: logo.png]' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'The pictures the tool read_file returned:' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
          ],
        },
      ],
    });
  });
});
