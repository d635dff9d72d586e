import type { ChatDelta } from '@lich/core';
import { ProviderError } from '@lich/providers';
import { type FakeServer, start_anthropic_server, unused_port_url } from '@lich/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create_anthropic_provider } from '../src/index.js';

let server: FakeServer;

beforeAll(async () => {
  server = await start_anthropic_server();
});

afterAll(async () => {
  await server.close();
});

async function failure(
  options: { signal?: AbortSignal; base_url?: string; idle_timeout_ms?: number } = {},
): Promise<{ error: ProviderError; deltas: ChatDelta[] }> {
  const deltas: ChatDelta[] = [];
  const provider = create_anthropic_provider({
    kind: 'anthropic',
    model: 'claude-test',
    base_url: options.base_url ?? server.base_url,
    api_key: 'k',
    idle_timeout_ms: options.idle_timeout_ms,
  });
  const error = await provider
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

describe('Anthropic errors', () => {
  it('maps an error status with its type, message, request id and retry-after', async () => {
    server.enqueue({ kind: 'status', status: 529, retry_after: 3 });
    const { error } = await failure();
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

    server.enqueue({ kind: 'status', status: 400, message: 'messages: roles must alternate' });
    expect((await failure()).error).toMatchObject({
      status: 400,
      code: 'invalid_request_error',
      provider_message: 'messages: roles must alternate',
      retryable: false,
    });
  });

  it('turns an overloaded_error event after the 200 into a retryable error, marked delivered', async () => {
    server.enqueue({
      text: 'Partial',
      error_event: { type: 'overloaded_error', message: 'Overloaded' },
    });
    const { error, deltas } = await failure();
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

  it('rejects a 200 HTML page, a non-JSON event and malformed SSE as parse errors', async () => {
    server.enqueue({ kind: 'html' });
    expect((await failure()).error.kind).toBe('parse');
    server.enqueue({ kind: 'raw', chunks: ['event: message_start\ndata: {nope\n\n'] });
    expect((await failure()).error.kind).toBe('parse');
    server.enqueue({ kind: 'raw', chunks: ['<!DOCTYPE html>\n<p>hi</p>\n'] });
    expect((await failure()).error.kind).toBe('parse');
  });

  it('rejects a tool_use block with no name', async () => {
    server.enqueue({
      kind: 'raw',
      chunks: [
        'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1}}}\n\n',
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","input":{}}}\n\n',
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"}}\n\n',
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      ],
    });
    expect((await failure()).error).toMatchObject({ kind: 'parse' });
  });

  it('fails an unterminated stream and a cut connection with kind stream', async () => {
    server.enqueue({ text: 'partial answer', unterminated: true });
    const unterminated = await failure();
    expect(unterminated.error).toMatchObject({ kind: 'stream', delivered: true });
    expect(unterminated.error.message).toContain('message_stop');

    server.enqueue({
      kind: 'cut',
      after_bytes: 1500,
      reply: { text: 'a long answer '.repeat(30) },
    });
    const cut = await failure();
    expect(cut.error).toMatchObject({ kind: 'stream', delivered: true });
  });

  it('reports network errors, idle timeouts and aborts', async () => {
    expect((await failure({ base_url: await unused_port_url() })).error.kind).toBe('network');
    server.enqueue({ kind: 'stall', headers: true });
    expect((await failure({ idle_timeout_ms: 200 })).error.kind).toBe('timeout');
    server.enqueue({ kind: 'stall' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    expect((await failure({ signal: controller.signal })).error).toMatchObject({
      kind: 'aborted',
      retryable: false,
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a bad option when built', () => {
    expect(() =>
      create_anthropic_provider({ kind: 'anthropic', model: 'm', options: { thinking: 'on' } }),
    ).toThrow(/options.thinking/);
  });
});
