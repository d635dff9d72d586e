import type { ChatDelta } from '@lich/core';
import { ProviderError } from '@lich/providers';
import { type FakeServer, start_ollama_server, unused_port_url } from '@lich/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create_ollama_provider } from '../src/index.js';

let server: FakeServer;

beforeAll(async () => {
  server = await start_ollama_server();
});

afterAll(async () => {
  await server.close();
});

async function failure(
  options: { signal?: AbortSignal; base_url?: string; idle_timeout_ms?: number } = {},
): Promise<{ error: ProviderError; deltas: ChatDelta[] }> {
  const deltas: ChatDelta[] = [];
  const provider = create_ollama_provider({
    kind: 'ollama',
    model: 'qwen3:8b',
    base_url: options.base_url ?? server.base_url,
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

describe('Ollama errors', () => {
  it('maps an error status with its message', async () => {
    server.enqueue({ kind: 'status', status: 404, message: "model 'qwen3:8b' not found" });
    const { error } = await failure();
    expect(error).toMatchObject({
      kind: 'http',
      provider: 'ollama',
      model: 'qwen3:8b',
      status: 404,
      provider_message: "model 'qwen3:8b' not found",
      retryable: false,
    });
    server.enqueue({ kind: 'status', status: 503, retry_after: 1 });
    expect((await failure()).error).toMatchObject({
      status: 503,
      retry_after_ms: 1000,
      retryable: true,
    });
  });

  it('turns an error line after the 200 into a stream error, marked delivered', async () => {
    server.enqueue({
      text: 'Partial',
      error_event: { message: 'llama runner process has terminated' },
    });
    const { error, deltas } = await failure();
    expect(deltas.map((delta) => delta.text).join('')).toBe('Partial');
    expect(error).toMatchObject({
      kind: 'stream',
      provider_message: 'llama runner process has terminated',
      delivered: true,
    });
  });

  it('rejects a 200 HTML page, a non-JSON line and a nameless tool call as parse errors', async () => {
    server.enqueue({ kind: 'html' });
    expect((await failure()).error.kind).toBe('parse');
    server.enqueue({
      kind: 'raw',
      chunks: ['{"message":{"role":"assistant","content":"a"},"done":false}\n', 'not json\n'],
      chunk_delay_ms: 50,
    });
    expect((await failure()).error).toMatchObject({ kind: 'parse', delivered: true });
    server.enqueue({
      kind: 'raw',
      chunks: [
        '{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"arguments":{}}}]},"done":false}\n',
      ],
    });
    expect((await failure()).error.message).toContain('no function name');
  });

  it('fails an unterminated stream and a cut connection with kind stream', async () => {
    server.enqueue({ text: 'partial answer', unterminated: true });
    const unterminated = await failure();
    expect(unterminated.error).toMatchObject({ kind: 'stream', delivered: true });
    expect(unterminated.error.message).toContain('done: true');
    server.enqueue({ kind: 'cut', after_bytes: 600, reply: { text: 'a long answer '.repeat(30) } });
    expect((await failure()).error).toMatchObject({ kind: 'stream', delivered: true });
  });

  it('reports network errors, idle timeouts and aborts', async () => {
    expect((await failure({ base_url: await unused_port_url() })).error.kind).toBe('network');
    server.enqueue({ kind: 'stall', headers: true });
    expect((await failure({ idle_timeout_ms: 200 })).error.kind).toBe('timeout');
    server.enqueue({ kind: 'stall' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    expect((await failure({ signal: controller.signal })).error.kind).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a bad option when built', () => {
    expect(() =>
      create_ollama_provider({ kind: 'ollama', model: 'm', options: { think: 'maximum' } }),
    ).toThrow(/options.think/);
  });
});
