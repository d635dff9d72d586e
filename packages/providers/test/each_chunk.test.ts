import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { post_json } from '../src/post_json.js';
import { ProviderError } from '../src/provider_error.js';
import { SseParser } from '../src/sse_parser.js';
import { type Handler, sse_handler, start_wire_server, type WireServer } from './wire_server.js';

const CONTEXT = { provider: 'test', model: 'm-1' };

const servers: WireServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
async function serve(handler: Handler) {
  const server = await start_wire_server(handler);
  servers.push(server);
  return server;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Every event's data, read push-style until `stop_at` (kept when `release`), or the end. */
async function read_events(
  url: string,
  options: { stop_at?: string; release?: boolean; signal?: AbortSignal; idle?: number } = {},
  on_event?: (data: string) => void,
): Promise<string[]> {
  const response = await post_json(
    url,
    {},
    {
      ...CONTEXT,
      signal: options.signal,
      idle_timeout_ms: options.idle,
    },
  );
  const parser = new SseParser();
  const data: string[] = [];
  let released: Promise<void> | undefined;
  await response.each_chunk((bytes) => {
    for (const event of parser.push(bytes)) {
      data.push(event.data);
      on_event?.(event.data);
      if (event.data === options.stop_at) {
        if (options.release) released = response.release();
        return true;
      }
    }
    return false;
  });
  await released;
  return data;
}

describe('post_json each_chunk over node:http', () => {
  it('hands out every chunk, and keeps the connection when released at the final event', async () => {
    const server = await serve(sse_handler(3));
    for (let round = 0; round < 3; round++) {
      const data = await read_events(`${server.url}/chat`, { stop_at: '{"n":2}', release: true });
      expect(data).toEqual(['{"n":0}', '{"n":1}', '{"n":2}']);
    }
    const whole = await read_events(`${server.url}/chat`);
    expect(whole).toEqual(['{"n":0}', '{"n":1}', '{"n":2}', '[DONE]']);
    expect(server.connections).toBe(1);
  });

  it('closes the connection when left early without a release', async () => {
    const server = await serve(sse_handler(50, 20));
    const data = await read_events(`${server.url}/chat`, { stop_at: '{"n":0}' });
    expect(data).toEqual(['{"n":0}']);
    await server.wait_closed(1, 1_000);
    await read_events(`${server.url}/chat`, { stop_at: '{"n":0}' });
    expect(server.connections).toBe(2);
  });

  it('closes a released connection whose rest does not come promptly', async () => {
    // 50 events 20 ms apart: the rest takes a second, the read-off waits 100 ms
    const server = await serve(sse_handler(50, 20));
    const started = performance.now();
    const data = await read_events(`${server.url}/chat`, { stop_at: '{"n":0}', release: true });
    expect(data).toEqual(['{"n":0}']);
    expect(performance.now() - started).toBeLessThan(900);
    await server.wait_closed(1, 1_000);
    const whole = await read_events(`${server.url}/chat`, { stop_at: '{"n":1}', release: true });
    expect(whole).toEqual(['{"n":0}', '{"n":1}']);
    expect(server.connections).toBe(2);
  });

  it('rejects at once with kind aborted when the caller aborts mid-body, closing the socket', async () => {
    const server = await serve((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\ndata: 2\n\n'); // then silence: only the abort ends it
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await rejection(
      read_events(`${server.url}/chat`, { signal: controller.signal }, (data) => {
        seen.push(data);
        if (data === '2') setImmediate(() => controller.abort());
      }),
    );
    expect(ProviderError.is_instance(error) && error.kind).toBe('aborted');
    expect(seen).toEqual(['1', '2']);
    await server.wait_closed(1, 1_000);
  });

  it('maps a cut connection to a stream error, also when it broke before reading began', async () => {
    const server = await serve((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"n":0}\n\n', () => response.socket?.destroy());
    });
    const live = await rejection(read_events(`${server.url}/chat`));
    expect(live).toMatchObject({ kind: 'stream', retryable: true });
    const response = await post_json(`${server.url}/chat`, {}, CONTEXT);
    await server.wait_closed(2);
    await new Promise((wake) => setTimeout(wake, 20));
    const late = await rejection(response.each_chunk(() => false));
    expect(late).toMatchObject({ kind: 'stream', retryable: true });
    expect((late as Error).message).toBe(
      'test (m-1): stream error: the connection broke mid-stream (other side closed)',
    );
  });

  it('rethrows what the reader threw unchanged, and closes the connection', async () => {
    const server = await serve(sse_handler(50, 20));
    const thrown = new Error('the reader gave up');
    const response = await post_json(`${server.url}/chat`, {}, CONTEXT);
    const error = await rejection(
      response.each_chunk(() => {
        throw thrown;
      }),
    );
    expect(error).toBe(thrown);
    await server.wait_closed(1, 1_000);
  });

  it('times out when the stream goes quiet', async () => {
    const server = await serve((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n'); // then silence
    });
    const error = await rejection(read_events(`${server.url}/chat`, { idle: 100 }));
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    await server.wait_closed(1, 1_000);
  });

  it('decodes a gzip body as it streams', async () => {
    const events = Array.from({ length: 20 }, (_, index) => `data: {"n":${index}}\n\n`).join('');
    const packed = gzipSync(events);
    const server = await serve((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      response.write(packed.subarray(0, 10));
      setTimeout(() => response.end(packed.subarray(10)), 20);
    });
    const data = await read_events(`${server.url}/chat`);
    expect(data).toHaveLength(20);
    expect(data.at(-1)).toBe('{"n":19}');
  });

  it('reads the body through fetch too, when post_json was given one', async () => {
    const server = await serve(sse_handler(3));
    const response = await post_json(`${server.url}/chat`, {}, { ...CONTEXT, fetch });
    const parser = new SseParser();
    const data: string[] = [];
    await response.each_chunk((bytes) => {
      for (const event of parser.push(bytes)) data.push(event.data);
      return false;
    });
    expect(data).toEqual(['{"n":0}', '{"n":1}', '{"n":2}', '[DONE]']);
  });
});
