import { createServer, request as http_request } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { TelegramServer as TelegramServerClass } from 'telegram-test-api/lib/telegramServer.js';

// A CommonJS package whose typings say `export default`: require it for the class itself.
const TelegramServer = createRequire(import.meta.url)(
  'telegram-test-api',
) as typeof TelegramServerClass;
type TelegramServer = TelegramServerClass;

/**
 * The Bot API emulator `telegram-test-api`, behind a small proxy that adds what the emulator
 * lacks: `sendChatAction` (recorded), 429 answers with `retry_after` injected on demand, and
 * files: `getFile` and the file host's `GET /file/bot<token>/<file_path>`, for files a test adds.
 */
export interface Emulator {
  server: TelegramServer;
  /** What grammy's `apiRoot` points at: the proxy. */
  api_root: string;
  /** Chats that got a typing action. */
  typing: string[];
  /** Answer the next `count` calls of `method` with 429, `retry_after` seconds. */
  throttle(method: string, count: number, retry_after: number): void;
  /** Calls of each method the proxy saw, with the time (ms). */
  calls: { method: string; at: number }[];
  /**
   * Serves `bytes` as the file `file_id`: `getFile` answers its path (and its size, unless
   * `report_size` is false), and the file host sends the bytes (after `delay_ms`: a slow link).
   */
  add_file(
    file_id: string,
    bytes: Buffer,
    options?: { report_size?: boolean; delay_ms?: number },
  ): void;
  /** The paths the file host was asked for (`/file/bot<token>/<file_path>`). */
  downloads: string[];
  close(): Promise<void>;
}

async function free_port(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export async function start_emulator(): Promise<Emulator> {
  const emulator_port = await free_port();
  const server = new TelegramServer({ port: emulator_port, host: '127.0.0.1', storeTimeout: 600 });
  await server.start();
  const typing: string[] = [];
  const calls: { method: string; at: number }[] = [];
  const throttles = new Map<string, { count: number; retry_after: number }>();
  const files = new Map<string, { bytes: Buffer; report_size: boolean; delay_ms: number }>();
  const downloads: string[] = [];
  const proxy = createServer((request, response) => {
    const file_download = /^\/file\/bot[^/]+\/(.+)$/.exec(request.url ?? '');
    if (file_download !== null) {
      downloads.push(request.url ?? '');
      const file = files.get(decodeURIComponent(file_download[1] ?? '').replace(/^photos\//, ''));
      if (file === undefined) {
        response.writeHead(404).end();
        return;
      }
      // chunked, with no length: the reader must count the bytes itself
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      setTimeout(() => response.end(file.bytes), file.delay_ms);
      return;
    }
    const method = (request.url ?? '').split('/').at(-1)?.split('?')[0] ?? '';
    calls.push({ method, at: Date.now() });
    const throttle = throttles.get(method);
    if (throttle !== undefined && throttle.count > 0) {
      throttle.count -= 1;
      request.resume();
      response.writeHead(429, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          ok: false,
          error_code: 429,
          description: `Too Many Requests: retry after ${throttle.retry_after}`,
          parameters: { retry_after: throttle.retry_after },
        }),
      );
      return;
    }
    if (method === 'getFile') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const { file_id } = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
          file_id?: string;
        };
        const file = file_id === undefined ? undefined : files.get(file_id);
        response.writeHead(file === undefined ? 400 : 200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(
            file === undefined
              ? { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' }
              : {
                  ok: true,
                  result: {
                    file_id,
                    file_unique_id: `u-${file_id}`,
                    ...(file.report_size ? { file_size: file.bytes.length } : {}),
                    file_path: `photos/${file_id}`,
                  },
                },
          ),
        );
      });
      return;
    }
    if (method === 'sendChatAction') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
          chat_id?: unknown;
        };
        typing.push(String(body.chat_id));
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ok: true, result: true }));
      });
      return;
    }
    const forward = http_request(
      {
        host: '127.0.0.1',
        port: emulator_port,
        method: request.method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forward.on('error', () => response.writeHead(502).end());
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    server,
    api_root: `http://127.0.0.1:${port}`,
    typing,
    calls,
    throttle(method, count, retry_after) {
      throttles.set(method, { count, retry_after });
    },
    add_file(file_id, bytes, options = {}) {
      files.set(file_id, {
        bytes,
        report_size: options.report_size ?? true,
        delay_ms: options.delay_ms ?? 0,
      });
    },
    downloads,
    async close() {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await server.stop();
    },
  };
}
