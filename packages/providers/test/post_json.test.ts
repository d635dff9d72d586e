import { type FakeServer, start_fake_server, unused_port_url } from '@lich/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { post_json } from '../src/http/post_json.js';
import { ProviderError } from '../src/provider_error.js';
import { events_of, lines_of } from './events_of.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
async function serve(
  format: 'openai' | 'anthropic' | 'ollama',
  script: Parameters<typeof start_fake_server>[0]['script'],
) {
  const server = await start_fake_server({ format, script });
  servers.push(server);
  return server;
}

async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    expect(ProviderError.is_instance(error)).toBe(true);
    return error as ProviderError;
  }
  throw new Error('expected a rejection');
}

const CONTEXT = { provider: 'test', model: 'm-1' };

describe('post_json against the fake provider servers', () => {
  it('streams SSE and sends JSON with the given headers', async () => {
    const server = await serve('anthropic', [{ text: 'Hello there' }]);
    const response = await post_json(
      `${server.base_url}/v1/messages`,
      '{"model":"m-1","stream":true}',
      { ...CONTEXT, headers: { 'x-api-key': 'k' } },
    );
    expect(response.status).toBe(200);
    expect(response.request_id).toBe('req_anthropic_1');
    const events = await events_of(response);
    expect(events[0]?.event).toBe('message_start');
    expect(events.at(-1)?.event).toBe('message_stop');
    expect(server.requests[0]?.headers['x-api-key']).toBe('k');
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    expect(server.requests[0]?.body).toEqual({ model: 'm-1', stream: true });
  });

  it('reads NDJSON and whole JSON bodies', async () => {
    const server = await serve('ollama', [{ text: 'abc' }, { text: 'whole' }]);
    const streamed = await post_json(`${server.base_url}/api/chat`, '{}', CONTEXT);
    const lines = await lines_of(streamed);
    expect(lines.at(-1)).toMatchObject({ done: true });
    const whole = await post_json(`${server.base_url}/api/chat`, '{"stream":false}', CONTEXT);
    expect(await whole.json()).toMatchObject({ message: { content: 'whole' } });
  });

  it('maps error statuses with the provider message, code, request id and retry headers', async () => {
    const server = await serve('openai', [
      {
        kind: 'status',
        status: 429,
        retry_after: 2,
        should_retry: false,
        code: 'insufficient_quota',
        message: 'You exceeded your current quota.',
      },
    ]);
    const error = await rejection(post_json(`${server.base_url}/chat/completions`, '{}', CONTEXT));
    expect(error).toMatchObject({
      kind: 'http',
      status: 429,
      provider: 'test',
      model: 'm-1',
      code: 'insufficient_quota',
      provider_message: 'You exceeded your current quota.',
      retry_after_ms: 2000,
      retryable: false,
    });
    expect(error.request_id).toMatch(/^req_/);
    expect(error.message).toBe(
      `test (m-1): HTTP 429 insufficient_quota: You exceeded your current quota. [request ${error.request_id}]`,
    );
  });

  it('reads the Anthropic and Ollama error shapes, retry-after-ms first', async () => {
    const anthropic = await serve('anthropic', [
      { kind: 'status', status: 529, retry_after_ms: 250, retry_after: 9 },
    ]);
    const overloaded = await rejection(
      post_json(`${anthropic.base_url}/v1/messages`, '{}', CONTEXT),
    );
    expect(overloaded).toMatchObject({
      status: 529,
      code: 'overloaded_error',
      provider_message: 'Overloaded',
      retry_after_ms: 250,
      retryable: true,
    });
    const ollama = await serve('ollama', [
      { kind: 'status', status: 404, message: 'model "x" not found' },
    ]);
    const missing = await rejection(post_json(`${ollama.base_url}/api/chat`, '{}', CONTEXT));
    expect(missing).toMatchObject({
      status: 404,
      provider_message: 'model "x" not found',
      retryable: false,
    });
  });

  it('rejects a 200 HTML page and a 502 HTML page clearly', async () => {
    const server = await serve('openai', [{ kind: 'html' }, { kind: 'html', status: 502 }]);
    const page = await rejection(post_json(`${server.base_url}/chat/completions`, '{}', CONTEXT));
    expect(page.kind).toBe('parse');
    expect(page.message).toContain('HTML page: 502 Bad Gateway');
    const gateway = await rejection(
      post_json(`${server.base_url}/chat/completions`, '{}', CONTEXT),
    );
    expect(gateway).toMatchObject({
      kind: 'http',
      status: 502,
      provider_message: '502 Bad Gateway',
      retryable: true,
    });
  });

  it('maps a refused connection to a network error naming the cause', async () => {
    const url = await unused_port_url();
    const error = await rejection(post_json(`${url}/v1/chat/completions`, '{}', CONTEXT));
    expect(error.kind).toBe('network');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/^test \(m-1\): network error: .*ECONNREFUSED/);
  });

  it('times out when no headers arrive, and when the stream goes quiet', async () => {
    const server = await serve('openai', [{ kind: 'stall' }, { kind: 'stall', headers: true }]);
    const started = performance.now();
    const silent = await rejection(
      post_json(`${server.base_url}/chat/completions`, '{}', { ...CONTEXT, idle_timeout_ms: 150 }),
    );
    expect(silent).toMatchObject({ kind: 'timeout', retryable: true });
    expect(silent.message).toBe('test (m-1): timeout error: no data for 150 ms');
    expect(performance.now() - started).toBeLessThan(2_000);
    const response = await post_json(`${server.base_url}/chat/completions`, '{"stream":true}', {
      ...CONTEXT,
      idle_timeout_ms: 150,
    });
    const quiet = await rejection(events_of(response));
    expect(quiet.kind).toBe('timeout');
  });

  it('never times out with idle_timeout_ms 0: only the caller ends a stalled call then', async () => {
    const server = await serve('openai', [{ kind: 'stall', headers: true }]);
    const signal = AbortSignal.timeout(400);
    const response = await post_json(`${server.base_url}/chat/completions`, '{"stream":true}', {
      ...CONTEXT,
      idle_timeout_ms: 0,
      signal,
    });
    const error = await rejection(response.each_chunk(() => false));
    expect(error.kind).toBe('aborted');
  });

  it('keeps a slow stream alive while chunks keep arriving', async () => {
    const server = await serve('openai', [
      { text: 'a slow but steady answer', chunk_chars: 2, chunk_delay_ms: 40 },
    ]);
    const response = await post_json(`${server.base_url}/chat/completions`, '{"stream":true}', {
      ...CONTEXT,
      idle_timeout_ms: 150,
    });
    expect((await events_of(response)).length).toBeGreaterThan(10);
  });

  it('maps a connection cut mid-stream to a retryable stream error', async () => {
    const server = await serve('openai', [
      { kind: 'cut', after_bytes: 300, reply: { text: 'x'.repeat(400) } },
    ]);
    const response = await post_json(
      `${server.base_url}/chat/completions`,
      '{"stream":true}',
      CONTEXT,
    );
    const error = await rejection(events_of(response));
    expect(error).toMatchObject({ kind: 'stream', retryable: true });
    expect(error.message).toContain('the connection broke mid-stream');
  });

  it('rejects at once when the caller aborts, before or during the request', async () => {
    const server = await serve('openai', [{ kind: 'stall' }]);
    const before = new AbortController();
    before.abort();
    expect(
      (
        await rejection(
          post_json(`${server.base_url}/chat/completions`, '{}', {
            ...CONTEXT,
            signal: before.signal,
          }),
        )
      ).kind,
    ).toBe('aborted');
    expect(server.requests).toHaveLength(0);
    const during = new AbortController();
    const pending = post_json(`${server.base_url}/chat/completions`, '{}', {
      ...CONTEXT,
      signal: during.signal,
    });
    await server.wait_for_requests(1);
    during.abort();
    const error = await rejection(pending);
    expect(error.kind).toBe('aborted');
    expect(error.retryable).toBe(false);
  });

  it('rejects the body at once when the caller aborts mid-stream', async () => {
    const server = await serve('anthropic', [
      { text: 'slow text '.repeat(20), chunk_delay_ms: 50 },
    ]);
    const controller = new AbortController();
    const response = await post_json(`${server.base_url}/v1/messages`, '{"stream":true}', {
      ...CONTEXT,
      signal: controller.signal,
    });
    let seen = 0;
    const started = performance.now();
    const error = await rejection(
      events_of(response, () => {
        seen += 1;
        if (seen === 3) controller.abort();
        return false;
      }),
    );
    expect(error.kind).toBe('aborted');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('reports a non-JSON 200 body as a parse error', async () => {
    const server = await serve('openai', [
      {
        kind: 'raw',
        chunks: ['{"id": "chatcmpl-1", "choices": ['],
        content_type: 'application/json',
      },
    ]);
    const response = await post_json(`${server.base_url}/chat/completions`, '{}', CONTEXT);
    const error = await rejection(response.json());
    expect(error.kind).toBe('parse');
    expect(error.message).toContain('the answer is not JSON');
  });
});
