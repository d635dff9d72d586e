import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Usage } from '@lich/core';
import { AnthropicCache, type AnthropicCacheOptions, CacheRuleError } from './anthropic_cache.js';
import { render_anthropic } from './anthropic_render.js';
import { render_bedrock } from './bedrock_render.js';
import { error_body } from './error_body.js';
import { fixture_content_type, read_fixture, split_lines } from './fixtures.js';
import { render_gemini } from './gemini_render.js';
import { render_ollama } from './ollama_render.js';
import { OpenAICache, type OpenAICacheOptions } from './openai_cache.js';
import { render_openai } from './openai_render.js';
import { render_openai_responses } from './openai_responses_render.js';
import type { RenderContext, RenderedResponse } from './render.js';
import type { FakeReply, RecordedRequest, ScriptStep, StatusFault, WireFormat } from './script.js';
import { split_bytes } from './split.js';

/** Options of `start_fake_server`. */
export interface FakeServerOptions {
  format: WireFormat;
  /** Steps queued before the first request; more can be added with `enqueue`. */
  script?: ScriptStep[];
  /** OpenAI format: the reasoning field name (`reasoning_content` by default, OpenRouter uses `reasoning`). */
  reasoning_field?: 'reasoning_content' | 'reasoning';
  /**
   * Answers a request when the queue is empty, instead of the 500 that says the script ran out:
   * a step computed from the request (an echo of the last user message, say).
   */
  respond?: (request: RecordedRequest) => ScriptStep;
  /**
   * Keep every request in `requests` (default true). A long benchmark turns it off, so the
   * server's memory stays flat; `wait_for_requests` still counts them.
   */
  record_requests?: boolean;
  /**
   * Bill like the real API's prompt cache (Anthropic and OpenAI formats): Anthropic writes and
   * reads prefixes at `cache_control` breakpoints, OpenAI caches prefixes automatically. The
   * usage of each reply then comes from the cache (a scripted `usage` still wins) and is kept in
   * `bills`. `true` takes the APIs' defaults (1024 tokens minimum).
   */
  prompt_cache?: boolean | (AnthropicCacheOptions & OpenAICacheOptions);
}

/** What one request was billed, in Lich's terms: `input_tokens` is the whole prompt. */
export interface FakeBill {
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** A fake provider API on 127.0.0.1 answering from a queued script. */
export interface FakeServer {
  readonly format: WireFormat;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /**
   * The base URL a provider of this format is configured with: `<url>/v1` for OpenAI (requests go
   * to `<base_url>/chat/completions`), `<url>` for Anthropic (`/v1/messages`) and Ollama
   * (`/api/chat`).
   */
  readonly base_url: string;
  readonly port: number;
  /** The path answers are given on (`/v1/chat/completions`, `/v1/messages`, `/api/chat`). */
  readonly path: string;
  /** Every request received, in arrival order, including ones answered with 404 or 500. */
  readonly requests: readonly RecordedRequest[];
  /** With `prompt_cache`: the billing of each answered reply, in arrival order. */
  readonly bills: readonly FakeBill[];
  /** How many queued steps are left. */
  readonly pending: number;
  /** Appends steps to the queue. */
  enqueue(...steps: ScriptStep[]): void;
  /** Resolves once `count` requests have arrived; rejects after `timeout_ms` (default 5000). */
  wait_for_requests(count: number, options?: { timeout_ms?: number }): Promise<void>;
  /** Stops listening and destroys every open socket (stalled responses included). Idempotent. */
  close(): Promise<void>;
}

const PATHS: Record<WireFormat, string> = {
  openai: '/v1/chat/completions',
  anthropic: '/v1/messages',
  ollama: '/api/chat',
  gemini: '/v1beta/models/{model}:streamGenerateContent',
  bedrock: '/model/{model}/converse-stream',
};

/** Whether a request to `path` is one the format answers (Gemini names the model in it). */
function answers(format: WireFormat, path: string): boolean {
  if (format === 'gemini')
    return /^\/v1beta\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(path);
  if (format === 'bedrock') return /^\/model\/[^/]+\/converse(-stream)?$/.test(path);
  // Azure OpenAI's deployment and v1 paths speak the same format
  if (format === 'openai') {
    return (
      path === PATHS.openai ||
      path === '/v1/responses' ||
      /^\/openai\/(deployments\/[^/]+|v1)\/(chat\/completions|responses)$/.test(path)
    );
  }
  return path === PATHS[format];
}

const STREAM_TYPES: Record<WireFormat, string> = {
  openai: 'text/event-stream; charset=utf-8',
  anthropic: 'text/event-stream; charset=utf-8',
  ollama: 'application/x-ndjson',
  gemini: 'text/event-stream',
  bedrock: 'application/vnd.amazon.eventstream',
};

/** The error type Bedrock names in `x-amzn-errortype` for a status. */
const BEDROCK_ERROR_TYPES: Record<number, string> = {
  400: 'ValidationException',
  401: 'UnrecognizedClientException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

const HTML_PAGE =
  '<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n' +
  '<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n';

const RENDERERS = {
  openai: render_openai,
  anthropic: render_anthropic,
  ollama: render_ollama,
  gemini: render_gemini,
  bedrock: render_bedrock,
};

function is_reply(step: ScriptStep): step is FakeReply {
  return step.kind === undefined || step.kind === 'reply';
}

function record_headers(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function wants_stream(format: WireFormat, body: unknown, path: string): boolean {
  // Gemini says it by the endpoint
  if (format === 'gemini') return path.includes(':streamGenerateContent');
  if (format === 'bedrock') return path.endsWith('/converse-stream');
  const stream =
    typeof body === 'object' && body !== null ? Reflect.get(body, 'stream') : undefined;
  // Ollama streams unless told not to; the others only when asked.
  return format === 'ollama' ? stream !== false : stream === true;
}

/**
 * Starts a fake provider API on 127.0.0.1, port 0.
 *
 * Contract: each POST to the format's path takes the next queued step; an empty queue answers a
 * 500 in the format's error shape saying the script ran out (with `x-should-retry: false`), so a
 * test never hangs. Other paths answer 404 without taking a step. Every request is recorded.
 * `close()` ends everything, stalled and slow responses included.
 */
export async function start_fake_server(options: FakeServerOptions): Promise<FakeServer> {
  const format = options.format;
  const queue: ScriptStep[] = [...(options.script ?? [])];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const closing = new AbortController();
  // every paused response listens to it: 50 streams at once are not a leak
  setMaxListeners(0, closing.signal);
  const waiters = new Set<() => void>();
  let sequence = 0;
  let received = 0;
  const bills: FakeBill[] = [];
  const cache_options = options.prompt_cache === true ? {} : options.prompt_cache || undefined;
  const anthropic_cache =
    cache_options && format === 'anthropic' ? new AnthropicCache(cache_options) : undefined;
  const openai_cache =
    cache_options && format === 'openai' ? new OpenAICache(cache_options) : undefined;

  /** The usage the cache bills, in the format's terms (Anthropic's `input_tokens` is uncached). */
  const bill = (body: unknown): Partial<Usage> | undefined => {
    if (anthropic_cache) {
      const billed = anthropic_cache.bill(body);
      bills.push({
        input_tokens: billed.input_tokens + billed.cache_read_tokens + billed.cache_write_tokens,
        cache_read_tokens: billed.cache_read_tokens,
        cache_write_tokens: billed.cache_write_tokens,
      });
      return billed;
    }
    if (openai_cache) {
      const billed = openai_cache.bill(body);
      bills.push({ ...billed, cache_write_tokens: 0 });
      return billed;
    }
    return undefined;
  };

  const pause = async (ms: number | undefined) => {
    if (ms === undefined || ms <= 0) return;
    await sleep(ms, undefined, { signal: closing.signal }).catch(() => undefined);
  };

  const write = (response: ServerResponse, data: string | Uint8Array) =>
    new Promise<void>((resolve) => {
      if (response.destroyed || closing.signal.aborted) return resolve();
      response.write(data, () => resolve());
    });

  const send_json = (
    response: ServerResponse,
    status: number,
    body: Record<string, unknown> | string,
    headers: Record<string, string> = {},
  ) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(text);
  };

  const send_parts = async (
    response: ServerResponse,
    rendered: RenderedResponse,
    timing: { chunk_delay_ms?: number; write_bytes?: number },
  ) => {
    response.writeHead(rendered.status, {
      'content-type': rendered.content_type,
      'cache-control': 'no-cache',
      ...rendered.headers,
    });
    let parts: Array<string | Uint8Array> = rendered.parts;
    if (timing.write_bytes !== undefined) {
      const whole = Buffer.concat(rendered.parts.map((part) => Buffer.from(part)));
      parts = split_bytes(whole, timing.write_bytes);
    }
    for (let index = 0; index < parts.length; index++) {
      if (index > 0) await pause(timing.chunk_delay_ms);
      if (response.destroyed || closing.signal.aborted) return;
      await write(response, parts[index] as string | Uint8Array);
    }
    if (!response.destroyed) response.end();
  };

  /** The format's renderer; OpenAI's Responses API has its own. */
  const renderer = (context: RenderContext) =>
    format === 'openai' && context.request.path.endsWith('/responses')
      ? render_openai_responses
      : RENDERERS[format];

  const request_id = () => `req_fake_${String(sequence).padStart(4, '0')}`;

  const answer_status = (response: ServerResponse, fault: StatusFault) => {
    const id = request_id();
    const headers: Record<string, string> = {};
    if (format === 'anthropic') headers['request-id'] = id;
    if (format === 'openai') headers['x-request-id'] = id;
    if (format === 'bedrock') {
      headers['x-amzn-requestid'] = id;
      const type = fault.type ?? BEDROCK_ERROR_TYPES[fault.status] ?? 'InternalServerException';
      headers['x-amzn-errortype'] = `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`;
    }
    if (fault.retry_after !== undefined) headers['retry-after'] = String(fault.retry_after);
    if (fault.retry_after_ms !== undefined)
      headers['retry-after-ms'] = String(fault.retry_after_ms);
    if (fault.should_retry !== undefined) headers['x-should-retry'] = String(fault.should_retry);
    Object.assign(headers, fault.headers);
    const body = fault.body ?? error_body(format, fault, id);
    send_json(response, fault.status, body, headers);
  };

  const answer = async (step: ScriptStep, response: ServerResponse, context: RenderContext) => {
    await pause(step.delay_ms);
    if (response.destroyed || closing.signal.aborted) return;
    if (is_reply(step)) {
      await send_parts(response, renderer(context)(step, context), step);
      return;
    }
    switch (step.kind) {
      case 'status':
        answer_status(response, step);
        return;
      case 'reset':
        response.socket?.destroy();
        return;
      case 'stall':
        if (step.headers) {
          response.writeHead(200, { 'content-type': STREAM_TYPES[format] });
          response.flushHeaders();
        }
        return; // nothing more: the socket stays open until the client leaves or close()
      case 'html':
        response.writeHead(step.status ?? 200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(HTML_PAGE);
        return;
      case 'raw': {
        const rendered: RenderedResponse = {
          status: step.status ?? 200,
          content_type: step.content_type ?? STREAM_TYPES[format],
          headers: step.headers ?? {},
          parts: [],
        };
        response.writeHead(rendered.status, {
          'content-type': rendered.content_type,
          ...rendered.headers,
        });
        for (let index = 0; index < step.chunks.length; index++) {
          if (index > 0) await pause(step.chunk_delay_ms);
          if (response.destroyed || closing.signal.aborted) return;
          await write(response, step.chunks[index] as string | Uint8Array);
        }
        if (!response.destroyed) response.end();
        return;
      }
      case 'replay': {
        const bytes = read_fixture(step.fixture);
        const parts =
          step.write_bytes === undefined
            ? split_lines(bytes)
            : split_bytes(bytes, step.write_bytes);
        response.writeHead(200, {
          'content-type': step.content_type ?? fixture_content_type(step.fixture),
        });
        for (let index = 0; index < parts.length; index++) {
          if (index > 0) await pause(step.chunk_delay_ms);
          if (response.destroyed || closing.signal.aborted) return;
          await write(response, parts[index] as Uint8Array);
        }
        if (!response.destroyed) response.end();
        return;
      }
      case 'cut': {
        const rendered = renderer(context)(
          step.reply ?? { text: 'This answer will be cut off before it ends.' },
          context,
        );
        const bytes = Buffer.concat(rendered.parts.map((part) => Buffer.from(part)));
        response.writeHead(rendered.status, {
          'content-type': rendered.content_type,
          ...rendered.headers,
        });
        response.flushHeaders();
        const keep = Math.max(0, Math.min(step.after_bytes, bytes.length - 1));
        if (keep > 0) await write(response, bytes.subarray(0, keep));
        response.socket?.destroy();
        return;
      }
    }
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw_body = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw_body === '' ? undefined : JSON.parse(raw_body);
      } catch {
        body = undefined;
      }
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const recorded: RecordedRequest = {
        index: received,
        method: request.method ?? 'GET',
        path,
        headers: record_headers(request),
        body,
        raw_body,
        stream: wants_stream(format, body, path),
      };
      received += 1;
      if (options.record_requests !== false) requests.push(recorded);
      for (const waiter of waiters) waiter();

      if (!answers(format, path)) {
        send_json(
          response,
          404,
          error_body(
            format,
            { status: 404, message: `fake ${format} server: no route for ${path}` },
            'req_none',
          ),
        );
        return;
      }
      if (recorded.method !== 'POST') {
        send_json(
          response,
          405,
          error_body(
            format,
            { status: 405, message: `fake server: use POST, not ${recorded.method}` },
            'req_none',
          ),
        );
        return;
      }
      sequence += 1;
      const step = queue.shift() ?? options.respond?.(recorded);
      if (step === undefined) {
        answer_status(response, {
          kind: 'status',
          status: 500,
          type: format === 'anthropic' ? 'api_error' : 'server_error',
          message: `fake ${format} server: the script ran out (request #${recorded.index + 1}, ${recorded.method} ${path})`,
          should_retry: false,
        });
        return;
      }
      const context: RenderContext = {
        request: recorded,
        sequence,
        reasoning_field: options.reasoning_field ?? 'reasoning_content',
      };
      if (is_reply(step)) {
        try {
          const billed = bill(body);
          if (billed !== undefined) context.billed = billed;
        } catch (error) {
          if (!(error instanceof CacheRuleError)) throw error;
          answer_status(response, {
            kind: 'status',
            status: 400,
            type: 'invalid_request_error',
            message: error.message,
          });
          return;
        }
      }
      answer(step, response, context).catch((error: unknown) => {
        // A broken script is a test bug: answer it loudly rather than hang.
        const text = error instanceof Error ? error.message : String(error);
        if (!response.headersSent) send_json(response, 500, { error: `fake server: ${text}` });
        else response.destroy();
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  let closed: Promise<void> | undefined;

  return {
    format,
    url,
    base_url: format === 'openai' ? `${url}/v1` : format === 'gemini' ? `${url}/v1beta` : url,
    port,
    path: PATHS[format],
    requests,
    bills,
    get pending() {
      return queue.length;
    },
    enqueue(...steps: ScriptStep[]) {
      queue.push(...steps);
    },
    wait_for_requests(count: number, wait_options: { timeout_ms?: number } = {}) {
      if (received >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timeout_ms = wait_options.timeout_ms ?? 5000;
        const check = () => {
          if (received < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake server: ${received} of ${count} requests after ${timeout_ms} ms`));
        }, timeout_ms);
        waiters.add(check);
      });
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}

/** `start_fake_server({ format: 'openai', … })`. */
export function start_openai_server(
  options: Omit<FakeServerOptions, 'format'> = {},
): Promise<FakeServer> {
  return start_fake_server({ ...options, format: 'openai' });
}

/** `start_fake_server({ format: 'anthropic', … })`. */
export function start_anthropic_server(
  options: Omit<FakeServerOptions, 'format'> = {},
): Promise<FakeServer> {
  return start_fake_server({ ...options, format: 'anthropic' });
}

/** `start_fake_server({ format: 'gemini', … })`. */
export function start_gemini_server(
  options: Omit<FakeServerOptions, 'format'> = {},
): Promise<FakeServer> {
  return start_fake_server({ ...options, format: 'gemini' });
}

/** `start_fake_server({ format: 'bedrock', … })`. */
export function start_bedrock_server(
  options: Omit<FakeServerOptions, 'format'> = {},
): Promise<FakeServer> {
  return start_fake_server({ ...options, format: 'bedrock' });
}

/** `start_fake_server({ format: 'ollama', … })`. */
export function start_ollama_server(
  options: Omit<FakeServerOptions, 'format'> = {},
): Promise<FakeServer> {
  return start_fake_server({ ...options, format: 'ollama' });
}
