import type { ChatDelta } from '@lich/core';
import { ProviderError } from '@lich/providers';
import { type FakeServer, start_openai_server, unused_port_url } from '@lich/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create_openai_provider } from '../src/index.js';

let server: FakeServer;

beforeAll(async () => {
  server = await start_openai_server();
});

afterAll(async () => {
  await server.close();
});

function provider(base_url = server.base_url, idle_timeout_ms?: number) {
  return create_openai_provider({
    kind: 'openai_compat',
    model: 'gpt-test',
    base_url,
    idle_timeout_ms,
  });
}

async function failure(
  options: { signal?: AbortSignal; base_url?: string; idle_timeout_ms?: number } = {},
): Promise<{ error: ProviderError; deltas: ChatDelta[] }> {
  const deltas: ChatDelta[] = [];
  const error = await provider(options.base_url, options.idle_timeout_ms)
    .chat([{ role: 'user', content: 'hi' }], [], {
      signal: options.signal,
      on_delta: (delta) => deltas.push(delta),
    })
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  if (!ProviderError.is_instance(error)) throw new Error(`expected a ProviderError, got ${error}`);
  return { error, deltas };
}

describe('OpenAI-compatible errors', () => {
  it('maps an error status with the body, request id and retry-after', async () => {
    server.enqueue({
      kind: 'status',
      status: 429,
      retry_after: 2,
      message: 'Slow down please.',
      code: 'rate_limit_exceeded',
    });
    const { error } = await failure();
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
    server.enqueue({ kind: 'status', status: 401 });
    expect((await failure()).error).toMatchObject({
      status: 401,
      retryable: false,
      code: 'invalid_api_key',
    });
    server.enqueue({
      kind: 'status',
      status: 429,
      code: 'insufficient_quota',
      type: 'insufficient_quota',
    });
    expect((await failure()).error).toMatchObject({
      status: 429,
      code: 'insufficient_quota',
      retryable: false,
    });
    server.enqueue({ kind: 'status', status: 500, should_retry: false });
    expect((await failure()).error).toMatchObject({ status: 500, retryable: false });
  });

  it('reads the flat vLLM error body', async () => {
    server.enqueue({
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
    expect((await failure()).error).toMatchObject({
      status: 404,
      code: 'NotFoundError',
      provider_message: 'The model `x` does not exist.',
    });
  });

  it('rejects a 200 HTML page, a non-JSON chunk and a malformed SSE line as parse errors', async () => {
    server.enqueue({ kind: 'html' });
    const html = (await failure()).error;
    expect(html.kind).toBe('parse');
    expect(html.message).toContain('502 Bad Gateway');

    server.enqueue({
      kind: 'raw',
      chunks: ['data: {"choices":[{"delta":{"content":"a"}}]}\n\n', 'data: {oops\n\n'],
    });
    const chunk = await failure();
    expect(chunk.error).toMatchObject({ kind: 'parse', delivered: true, retryable: false });
    expect(chunk.error.message).toContain('{oops');
    expect(chunk.deltas).toEqual([{ kind: 'text', text: 'a' }]);

    server.enqueue({ kind: 'raw', chunks: ['<html><body>oops</body></html>\n'] });
    expect((await failure()).error.kind).toBe('parse');
  });

  it('rejects a tool call with no name', async () => {
    server.enqueue({
      kind: 'raw',
      chunks: [
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"arguments":"{}"}}]}}]}\n\n',
        'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n',
        'data: [DONE]\n\n',
      ],
    });
    const { error } = await failure();
    expect(error.kind).toBe('parse');
    expect(error.message).toContain('tool call 0 has no function name');
  });

  it('fails an unterminated stream, an error chunk and a cut connection, saying what was delivered', async () => {
    server.enqueue({ text: 'partial answer', unterminated: true });
    const unterminated = await failure();
    expect(unterminated.error).toMatchObject({ kind: 'stream', delivered: true });
    expect(unterminated.error.message).toContain('[DONE]');

    server.enqueue({ text: 'Hi', error_event: { message: 'upstream died' } });
    const mid = await failure();
    expect(mid.error).toMatchObject({
      kind: 'stream',
      provider_message: 'upstream died',
      delivered: true,
      retryable: true,
    });

    server.enqueue({
      kind: 'cut',
      after_bytes: 1200,
      reply: { text: 'a long answer '.repeat(20) },
    });
    const cut = await failure();
    expect(cut.error).toMatchObject({ kind: 'stream', delivered: true });
    expect(cut.deltas.length).toBeGreaterThan(0);

    server.enqueue({ kind: 'cut', after_bytes: 20 });
    expect((await failure()).error).toMatchObject({
      kind: 'stream',
      delivered: false,
      retryable: true,
    });
  });

  it('reports refused connections and resets as network errors', async () => {
    expect((await failure({ base_url: await unused_port_url() })).error).toMatchObject({
      kind: 'network',
      retryable: true,
    });
    server.enqueue({ kind: 'reset' });
    expect((await failure()).error).toMatchObject({ kind: 'network', retryable: true });
  });

  it('gives up on a stalled stream after the idle timeout', async () => {
    server.enqueue({ kind: 'stall', headers: true });
    const started = Date.now();
    const { error } = await failure({ idle_timeout_ms: 200 });
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('rejects promptly with kind aborted when the caller aborts mid-stream', async () => {
    server.enqueue({ text: 'slow '.repeat(50), chunk_chars: 5, chunk_delay_ms: 50 });
    const controller = new AbortController();
    const deltas: ChatDelta[] = [];
    const started = Date.now();
    const pending = provider().chat([{ role: 'user', content: 'hi' }], [], {
      signal: controller.signal,
      on_delta: (delta) => {
        deltas.push(delta);
        if (deltas.length === 2) controller.abort();
      },
    });
    const error = await pending.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ProviderError.is_instance(error) && error.kind).toBe('aborted');
    expect(ProviderError.is_instance(error) && error.retryable).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(deltas.length).toBe(2);
  });

  it('rejects at once when the signal has already fired, without a request', async () => {
    const before = server.requests.length;
    const { error } = await failure({ signal: AbortSignal.abort() });
    expect(error.kind).toBe('aborted');
    expect(server.requests.length).toBe(before);
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
