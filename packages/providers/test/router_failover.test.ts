import type { ChatDelta, Message } from '@lich/core';
import {
  type FakeServer,
  type ScriptStep,
  start_openai_server,
  unused_port_url,
} from '@lich/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderChainError } from '../src/provider_chain_error.js';
import { ProviderError } from '../src/provider_error.js';
import { ProviderRouter, type ProviderRouterOptions } from '../src/provider_router.js';
import type { RouterEvent } from '../src/router_events.js';
import { create_mini_openai } from './mini_openai_provider.js';

const USER: Message[] = [{ role: 'user', content: 'hi' }];
const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function server(script: ScriptStep[]): Promise<FakeServer> {
  const started = await start_openai_server({ script });
  servers.push(started);
  return started;
}

/**
 * A router over the fake servers. Its backoff waits are recorded in `sleeps` and take no time
 * (the router's injectable `sleep`), unless `options.sleep` says otherwise.
 */
function router_for(
  entries: Array<{ name: string; base_url: string }>,
  options: Partial<ProviderRouterOptions> = {},
): { router: ProviderRouter; events: RouterEvent[]; sleeps: number[] } {
  const events: RouterEvent[] = [];
  const sleeps: number[] = [];
  const router = new ProviderRouter({
    chain: entries.map((entry) => ({
      kind: entry.name,
      model: `${entry.name}-model`,
      base_url: entry.base_url,
      idle_timeout_ms: 2_000,
    })),
    kinds: Object.fromEntries(entries.map((entry) => [entry.name, create_mini_openai])),
    on_event: (event) => events.push(event),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return { router, events, sleeps };
}

async function failed(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ProviderError.is_instance(error)).toBe(true);
  return error as ProviderError;
}

describe('failover against the fake servers', () => {
  it('primary refuses connections → the secondary answers', async () => {
    const secondary = await server([{ text: 'from the secondary' }]);
    const { router, events } = router_for(
      [
        { name: 'primary', base_url: `${await unused_port_url()}/v1` },
        { name: 'secondary', base_url: secondary.base_url },
      ],
      { max_retries: 1, backoff_base_ms: 10 },
    );
    const deltas: ChatDelta[] = [];
    const result = await router.chat_with_failover(USER, [], {
      on_delta: (delta) => deltas.push(delta),
    });
    expect(result).toMatchObject({
      provider: 'secondary',
      message: { content: 'from the secondary' },
    });
    expect(deltas.map((delta) => delta.text).join('')).toBe('from the secondary');
    expect(events.map((event) => event.type)).toEqual(['provider_retry', 'provider_failover']);
    expect(events[1]).toMatchObject({
      from_provider: 'primary',
      to_provider: 'secondary',
      error_kind: 'network',
    });
    expect(events[1]?.reason).toMatch(/ECONNREFUSED/);
  });

  it('500 then 200 → exactly one retry and exactly one assistant message', async () => {
    const primary = await server([{ kind: 'status', status: 500 }, { text: 'recovered answer' }]);
    const { router, events, sleeps } = router_for([
      { name: 'primary', base_url: primary.base_url },
    ]);
    const deltas: string[] = [];
    const result = await router.chat_with_failover(USER, [], {
      on_delta: (delta) => deltas.push(delta.text),
    });
    expect(sleeps).toEqual([500]);
    expect(result.message).toEqual({ role: 'assistant', content: 'recovered answer' });
    expect(deltas.join('')).toBe('recovered answer');
    expect(primary.requests).toHaveLength(2);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'provider_retry',
      attempt: 1,
      delay_ms: 500,
      status: 500,
    });
  });

  it('429 with retry-after: 2 waits at least 2 s before the retry', async () => {
    const primary = await server([
      { kind: 'status', status: 429, retry_after: 2 },
      { text: 'after waiting' },
    ]);
    const { router, events, sleeps } = router_for([
      { name: 'primary', base_url: primary.base_url },
    ]);
    const result = await router.chat_with_failover(USER, []);
    expect(sleeps).toEqual([2_000]);
    expect(result.message.content).toBe('after waiting');
    expect(events[0]).toMatchObject({ type: 'provider_retry', delay_ms: 2_000, status: 429 });
  });

  it('401 → no retry, the next provider at once', async () => {
    const primary = await server([{ kind: 'status', status: 401 }, { text: 'never' }]);
    const secondary = await server([{ text: 'secondary ok' }]);
    const { router, events, sleeps } = router_for([
      { name: 'primary', base_url: primary.base_url },
      { name: 'secondary', base_url: secondary.base_url },
    ]);
    expect((await router.chat_with_failover(USER, [])).message.content).toBe('secondary ok');
    expect(sleeps).toEqual([]);
    expect(primary.requests).toHaveLength(1);
    expect(events.map((event) => event.type)).toEqual(['provider_failover']);
    expect(events[0]?.reason).toBe(
      'primary (primary-model): HTTP 401 invalid_api_key: Incorrect API key provided. [request req_fake_0001]',
    );
  });

  it('all providers down → one clear error naming each provider and why', async () => {
    const refused = `${await unused_port_url()}/v1`;
    const unauthorized = await server([
      { kind: 'status', status: 403, message: 'Country not supported.' },
    ]);
    const overloaded = await server([
      { kind: 'status', status: 503 },
      { kind: 'status', status: 503 },
    ]);
    const { router } = router_for(
      [
        { name: 'first', base_url: refused },
        { name: 'second', base_url: unauthorized.base_url },
        { name: 'third', base_url: overloaded.base_url },
      ],
      { max_retries: 1, backoff_base_ms: 20 },
    );
    const error = await failed(router.chat_with_failover(USER, []));
    expect(error).toBeInstanceOf(ProviderChainError);
    const lines = error.message.split('; ');
    expect(lines[0]).toMatch(
      /^all 3 providers failed: first \(first-model\): network error: connect ECONNREFUSED .* \(2 attempts\)$/,
    );
    expect(lines[1]).toBe(
      'second (second-model): HTTP 403 unsupported_country_region_territory: Country not supported. [request req_fake_0001] (1 attempt)',
    );
    expect(lines[2]).toMatch(
      /^third \(third-model\): HTTP 503 server_error: The engine is currently overloaded.* \(2 attempts\)$/,
    );
  });

  it('abort during the backoff → rejects at once, no further request', async () => {
    const primary = await server([{ kind: 'status', status: 503 }, { text: 'too late' }]);
    const controller = new AbortController();
    // the real backoff, longer than the test timeout: only an abort that cuts it lets this pass
    const { router } = router_for([{ name: 'primary', base_url: primary.base_url }], {
      backoff_base_ms: 60_000,
      sleep: undefined,
      on_event: (event) => {
        if (event.type === 'provider_retry') queueMicrotask(() => controller.abort());
      },
    });
    const pending = router.chat_with_failover(USER, [], { signal: controller.signal });
    const error = await failed(pending);
    expect(error.kind).toBe('aborted');
    expect(primary.requests).toHaveLength(1);
    expect(primary.pending).toBe(1);
  });

  it('a stream broken after deltas → a clear error, no retry, no failover, no repeated text', async () => {
    const primary = await server([
      {
        kind: 'cut',
        after_bytes: 700,
        reply: { text: 'The quick brown fox jumps over the lazy dog. '.repeat(4) },
      },
      { text: 'second attempt must not happen' },
    ]);
    const secondary = await server([{ text: 'nor this' }]);
    const { router, events } = router_for([
      { name: 'primary', base_url: primary.base_url },
      { name: 'secondary', base_url: secondary.base_url },
    ]);
    const deltas: string[] = [];
    const error = await failed(
      router.chat_with_failover(USER, [], { on_delta: (delta) => deltas.push(delta.text) }),
    );
    expect(error).toMatchObject({ kind: 'stream', delivered: true, retryable: false });
    expect(error.message).toMatch(
      /connection broke mid-stream.*not retried, so no text is repeated/,
    );
    expect(deltas.join('').length).toBeGreaterThan(0);
    expect(
      'The quick brown fox jumps over the lazy dog. '.repeat(4).startsWith(deltas.join('')),
    ).toBe(true);
    expect(primary.requests).toHaveLength(1);
    expect(secondary.requests).toHaveLength(0);
    expect(events).toEqual([]);
  });

  it('a cut before any delta is retried, and a stalled server times out and is retried', async () => {
    const primary = await server([
      { kind: 'cut', after_bytes: 0 },
      { kind: 'stall' },
      { text: 'third time lucky' },
    ]);
    const events: RouterEvent[] = [];
    const router = new ProviderRouter({
      chain: [{ kind: 'primary', model: 'm', base_url: primary.base_url, idle_timeout_ms: 200 }],
      kinds: { primary: create_mini_openai },
      backoff_base_ms: 10,
      on_event: (event) => events.push(event),
    });
    expect((await router.chat_with_failover(USER, [])).message.content).toBe('third time lucky');
    expect(
      events.map((event) => (event.type === 'provider_retry' ? event.error_kind : '')),
    ).toEqual(['stream', 'timeout']);
  });
});

describe('bad input from a server', () => {
  const cases: Array<[string, ScriptStep, RegExp, string]> = [
    [
      'a malformed SSE line',
      { kind: 'raw', chunks: ['data: {"choices":[]}\n\n', 'garbage line here\n\n'] },
      /unknown field 'garbage line here'/,
      'parse',
    ],
    [
      'a non-JSON chunk',
      { kind: 'raw', chunks: ['data: {"choices": [\n\n'] },
      /parse error: invalid JSON in the answer: /,
      'parse',
    ],
    ['a 200 with an HTML body', { kind: 'html' }, /HTML page: 502 Bad Gateway/, 'parse'],
    [
      'an unterminated stream',
      { text: 'half', unterminated: true },
      /ended before \[DONE\]/,
      'stream',
    ],
    [
      'a mid-stream error object',
      { text: 'x', error_event: { message: 'upstream died' } },
      /server_error: upstream died/,
      'http',
    ],
  ];
  for (const [name, step, message, kind] of cases) {
    it(`${name} → a clear ProviderError, no hang`, async () => {
      const primary = await server([step, step, step]);
      const { router } = router_for([{ name: 'primary', base_url: primary.base_url }], {
        backoff_base_ms: 10,
      });
      const error = await failed(router.chat_with_failover(USER, []));
      expect(error.kind).toBe(kind);
      expect(error.message).toMatch(message);
      expect(error.message.startsWith('primary (primary-model): ')).toBe(true);
    });
  }
});
