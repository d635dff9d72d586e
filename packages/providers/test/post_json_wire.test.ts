import { type AddressInfo, createServer } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { post_json } from '../src/http/post_json.js';
import { ProviderError } from '../src/provider_error.js';
import { data_of, events_of } from './events_of.js';
import { type Handler, sse_handler, start_wire_server, type WireServer } from './wire_server.js';

const CONTEXT = { provider: 'test', model: 'm-1' };

const servers: WireServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
async function serve(handler: Handler, options: { tls?: boolean } = {}) {
  const server = await start_wire_server(handler, options);
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

describe('post_json over node:http', () => {
  it('reuses one kept-alive connection for requests to the same host, error answers included', async () => {
    let calls = 0;
    const server = await serve((request, response) => {
      calls += 1;
      if (calls === 2) {
        request.resume();
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        response.end('{"error":{"message":"slow down","code":"rate_limit"}}');
        return;
      }
      sse_handler(3)(request, response);
    });
    const first = await post_json(`${server.url}/chat`, JSON.stringify({ n: 1 }), CONTEXT);
    expect(await data_of(first)).toEqual(['{"n":0}', '{"n":1}', '{"n":2}', '[DONE]']);
    const limited = await rejection(
      post_json(`${server.url}/chat`, JSON.stringify({ n: 2 }), CONTEXT),
    );
    expect(limited).toMatchObject({ kind: 'http', status: 429, retry_after_ms: 1000 });
    expect(limited.provider_message).toBe('slow down');
    const third = await post_json(`${server.url}/chat`, JSON.stringify({ n: 3 }), CONTEXT);
    expect(await third.text()).toContain('[DONE]');
    expect(calls).toBe(3);
    expect(server.connections).toBe(1);
  });

  it('closes the socket at once when the caller aborts mid-body, and opens a new one next time', async () => {
    const server = await serve((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\ndata: 2\n\n'); // then silence: only the abort ends it
    });
    const controller = new AbortController();
    const response = await post_json(`${server.url}/chat`, '{}', {
      ...CONTEXT,
      signal: controller.signal,
    });
    let seen = 0;
    let aborted_at = 0;
    const error = await rejection(
      events_of(response, () => {
        seen += 1;
        if (seen === 2) {
          setTimeout(() => {
            aborted_at = performance.now();
            controller.abort();
          }, 50);
        }
        return false;
      }),
    );
    expect(error.kind).toBe('aborted');
    expect(seen).toBe(2);
    expect(performance.now() - aborted_at).toBeLessThan(200);
    await server.wait_closed(1, 1_000);
    const again = await post_json(`${server.url}/chat`, '{}', CONTEXT);
    expect(await data_of(again, '2')).toEqual(['1', '2']);
    expect(server.connections).toBe(2);
  });

  it('closes a connection left idle a second before the server said it would, never one in use', async () => {
    let calls = 0;
    const stream = sse_handler(2, 1_500);
    const server = await serve((request, response) => {
      calls += 1;
      // the server keeps the connection 5 s; it says 2, so the client lets it go after 1 s idle
      response.setHeader('keep-alive', 'timeout=2');
      if (calls === 1) sse_handler(1)(request, response);
      else stream(request, response); // 1.5 s between events: longer than the idle limit
    });
    const first = await post_json(`${server.url}/chat`, '{}', CONTEXT);
    expect(await data_of(first)).toEqual(['{"n":0}', '[DONE]']);
    // the same connection, reused, carries an answer slower than the idle limit to its end
    const slow = await post_json(`${server.url}/chat`, '{}', CONTEXT);
    expect(await data_of(slow)).toEqual(['{"n":0}', '{"n":1}', '[DONE]']);
    expect(server.connections).toBe(1);
    expect(server.closed).toBe(0);
    const freed = Date.now();
    await server.wait_closed(1, 3_000);
    expect(Date.now() - freed).toBeGreaterThanOrEqual(900);
  });

  it('closes the socket when a body is left early and its rest does not come promptly', async () => {
    // 50 events 20 ms apart: the rest takes a second, the read-off waits 100 ms
    const server = await serve(sse_handler(50, 20));
    const started = performance.now();
    const left = await post_json(`${server.url}/chat`, '{}', CONTEXT);
    expect(await data_of(left, '{"n":0}')).toEqual(['{"n":0}']);
    expect(performance.now() - started).toBeLessThan(900);
    await server.wait_closed(1, 1_000);
    const thrown = new Error('the reader gave up');
    const reader = await post_json(`${server.url}/chat`, '{}', CONTEXT);
    const error = await reader
      .each_chunk(() => {
        throw thrown;
      })
      .catch((caught: unknown) => caught);
    expect(error).toBe(thrown);
    await server.wait_closed(2, 1_000);
    expect(server.connections).toBe(2);
  });

  it('keeps the connection when a body is left at its final event, or read to its end', async () => {
    const server = await serve(sse_handler(3));
    for (let round = 0; round < 3; round++) {
      const response = await post_json(`${server.url}/chat`, '{}', CONTEXT);
      expect(await data_of(response, '{"n":2}')).toEqual(['{"n":0}', '{"n":1}', '{"n":2}']);
    }
    const whole = await post_json(`${server.url}/chat`, '{}', CONTEXT);
    expect(await data_of(whole)).toEqual(['{"n":0}', '{"n":1}', '{"n":2}', '[DONE]']);
    expect(server.connections).toBe(1);
  });

  it('closes a connection whose answer does not end promptly after the final event', async () => {
    const server = await serve((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: [DONE]\n\n'); // and never ends
    });
    const response = await post_json(`${server.url}/chat`, '{}', CONTEXT);
    expect(await data_of(response, '[DONE]')).toEqual(['[DONE]']);
    await server.wait_closed(1, 1_000);
  });

  it('maps a reset before the headers to a network error', async () => {
    const server = await serve((request) => request.socket.destroy());
    const error = await rejection(post_json(`${server.url}/chat`, '{}', CONTEXT));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(error.message).toBe('test (m-1): network error: socket hang up');
  });

  it('maps a body cut before reading began to a stream error', async () => {
    const server = await serve((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"n":0}\n\n', () => response.socket?.destroy());
    });
    const response = await post_json(`${server.url}/chat`, '{}', CONTEXT);
    await server.wait_closed(1);
    await new Promise((wake) => setTimeout(wake, 20));
    const error = await rejection(data_of(response));
    expect(error).toMatchObject({ kind: 'stream', retryable: true });
    expect(error.message).toBe(
      'test (m-1): stream error: the connection broke mid-stream (other side closed)',
    );
  });

  it('sends JSON with content-length and fetch-like defaults the caller can override', async () => {
    const seen: Record<string, string | undefined>[] = [];
    const server = await serve((request, response) => {
      seen.push({
        'content-type': request.headers['content-type'],
        'content-length': request.headers['content-length'],
        'transfer-encoding': request.headers['transfer-encoding'],
        'user-agent': request.headers['user-agent'],
        accept: request.headers.accept,
        authorization: request.headers.authorization,
        host: request.headers.host,
        raw: request.rawHeaders.filter((_, index) => index % 2 === 0).join(' '),
      });
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] });
      response.end('{"ok":true}');
    });
    const body = { text: 'héllo' };
    const plain = await post_json(`${server.url}/x`, JSON.stringify(body), CONTEXT);
    expect(await plain.json()).toEqual({ ok: true });
    expect(plain.headers.get('Content-Type')).toBe('application/json');
    expect(plain.headers.get('set-cookie')).toBe('a=1, b=2');
    const custom = await post_json(`${server.url}/x`, JSON.stringify(body), {
      ...CONTEXT,
      headers: { 'User-Agent': 'lich-test', Authorization: 'Bearer k' },
    });
    await custom.text();
    const port = new URL(server.url).port;
    const credentials = await post_json(
      `${server.url.replace('//', '//us%40er:p%3Ass@')}/x`,
      JSON.stringify(body),
      CONTEXT,
    );
    await credentials.text();
    expect(seen[0]).toEqual({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(JSON.stringify(body))),
      'transfer-encoding': undefined,
      'user-agent': 'node',
      accept: '*/*',
      authorization: undefined,
      host: `127.0.0.1:${port}`,
      raw: 'accept user-agent content-type content-length Host Connection',
    });
    // a name given again in another case replaces the default, as `setHeader` would
    expect(seen[1]).toMatchObject({
      'user-agent': 'lich-test',
      authorization: 'Bearer k',
      raw: 'accept User-Agent content-type Authorization content-length Host Connection',
    });
    expect(seen[2]?.authorization).toBe(`Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
  });

  it('decodes a gzip body as it streams, and reports a corrupt one as a stream error', async () => {
    const events = Array.from({ length: 20 }, (_, index) => `data: {"n":${index}}\n\n`).join('');
    const packed = gzipSync(events);
    let calls = 0;
    const server = await serve((request, response) => {
      calls += 1;
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      if (calls === 1) {
        response.write(packed.subarray(0, 10));
        setTimeout(() => response.end(packed.subarray(10)), 20);
      } else {
        response.end(Buffer.from('not gzip at all'));
      }
    });
    const good = await post_json(`${server.url}/chat`, '{}', CONTEXT);
    const data = await data_of(good);
    expect(data).toHaveLength(20);
    expect(data.at(-1)).toBe('{"n":19}');
    const bad = await post_json(`${server.url}/chat`, '{}', CONTEXT);
    const error = await rejection(data_of(bad));
    expect(error.kind).toBe('stream');
    expect(error.message).toContain('the connection broke mid-stream (incorrect header check)');
  });

  it('follows a 307/308 with the same POST (credentials kept to their origin), not a 301', async () => {
    const target = await serve((request, response) => {
      let text = '';
      request.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            method: request.method,
            url: request.url,
            body: text,
            authorization: request.headers.authorization ?? null,
            api_key: request.headers['x-api-key'] ?? null,
          }),
        );
      });
    });
    const origin = await serve((request, response) => {
      request.resume();
      const redirects: Record<string, [number, string]> = {
        '/same': [307, '/moved'],
        '/moved': [308, `${target.url}/final`],
        '/gone': [301, `${target.url}/final`],
      };
      const [status, location] = redirects[request.url ?? ''] ?? [200, ''];
      if (location === '') return void response.end('{"at":"origin"}');
      response.writeHead(status, { location, 'content-type': 'text/plain' });
      response.end(`see ${location}`);
    });
    const options = { ...CONTEXT, headers: { authorization: 'Bearer k', 'x-api-key': 'k2' } };
    const moved = await post_json(`${origin.url}/same`, JSON.stringify({ ask: 1 }), options);
    expect(await moved.json()).toEqual({
      method: 'POST',
      url: '/final',
      body: '{"ask":1}',
      authorization: null,
      api_key: 'k2',
    });
    const gone = await rejection(post_json(`${origin.url}/gone`, '{}', options));
    expect(gone).toMatchObject({ kind: 'http', status: 301 });
  });

  it('sends https URLs through node:https, which checks the certificate against the default CAs', async () => {
    const server = await serve(sse_handler(1), { tls: true });
    const error = await rejection(post_json(`${server.url}/chat`, '{}', CONTEXT));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
    expect(error.message).toMatch(/^test \(m-1\): network error: self[- ]signed certificate/);
  });

  it('times out a TLS handshake that never completes, and closes the socket', async () => {
    const silent = createServer((socket) => socket.resume()); // takes the hello, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const closed = new Promise<void>((resolve) =>
      silent.on('connection', (socket) => socket.on('close', () => resolve())),
    );
    try {
      const started = performance.now();
      const error = await rejection(
        post_json(`https://127.0.0.1:${port}/chat`, '{}', { ...CONTEXT, idle_timeout_ms: 150 }),
      );
      expect(error.message).toBe('test (m-1): timeout error: no data for 150 ms');
      expect(performance.now() - started).toBeLessThan(1_000);
      await closed;
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('refuses a URL that is neither http nor https as a network error', async () => {
    const error = await rejection(post_json('ftp://127.0.0.1:21/chat', '{}', CONTEXT));
    expect(error.kind).toBe('network');
    expect(error.message).toBe(
      "test (m-1): network error: unsupported protocol 'ftp:' (use http: or https:)",
    );
  });
});
