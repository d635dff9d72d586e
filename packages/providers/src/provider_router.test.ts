import type { ChatDelta, ChatOptions, ChatResult, Message } from '@lich/core';
import { describe, expect, it } from 'vitest';
import type { LLMProvider, ProviderConfig } from './provider.js';
import { ProviderChainError } from './provider_chain_error.js';
import { ProviderError, type ProviderErrorInit } from './provider_error.js';
import { ProviderRouter, type ProviderRouterOptions } from './provider_router.js';
import type { RouterEvent } from './router_events.js';

const USER: Message[] = [{ role: 'user', content: 'hi' }];

type Step = ChatResult | ProviderError | Error | ((options: ChatOptions) => Promise<ChatResult>);

/** A scripted LLMProvider that records its calls. */
function scripted(config: ProviderConfig, steps: Step[]): LLMProvider & { calls: number } {
  const provider = {
    kind: config.kind,
    model: config.model,
    calls: 0,
    async chat(_messages: readonly Message[], _tools: unknown, options: ChatOptions = {}) {
      provider.calls += 1;
      const step = steps.shift();
      if (step === undefined) throw new Error(`${config.kind}: script ran out`);
      if (typeof step === 'function') return step(options);
      if (step instanceof Error) throw step;
      return step;
    },
  };
  return provider;
}

function answer(text: string): ChatResult {
  return { message: { role: 'assistant', content: text }, finish_reason: 'stop' };
}

function failure(kind: string, init: Partial<ProviderErrorInit>): ProviderError {
  return new ProviderError({ kind: 'http', provider: kind, model: `${kind}-model`, ...init });
}

interface Setup {
  router: ProviderRouter;
  providers: Record<string, LLMProvider & { calls: number }>;
  events: RouterEvent[];
  sleeps: number[];
  built: string[];
}

function setup(
  scripts: Record<string, Step[]>,
  options: Partial<ProviderRouterOptions> = {},
): Setup {
  const providers: Setup['providers'] = {};
  const events: RouterEvent[] = [];
  const sleeps: number[] = [];
  const built: string[] = [];
  const chain = Object.keys(scripts).map((kind) => ({ kind, model: `${kind}-model` }));
  const router = new ProviderRouter({
    chain,
    on_event: (event) => events.push(event),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  for (const [kind, steps] of Object.entries(scripts)) {
    router.register_kind(kind, (config) => {
      built.push(kind);
      const provider = scripted(config, steps);
      providers[kind] = provider;
      return provider;
    });
  }
  return { router, providers, events, sleeps, built };
}

describe('ProviderRouter registry', () => {
  it('builds providers lazily, once, and only when reached', async () => {
    const { router, built } = setup({ primary: [answer('a'), answer('b')], secondary: [] });
    expect(built).toEqual([]);
    await router.chat_with_failover(USER, []);
    await router.chat_with_failover(USER, []);
    expect(built).toEqual(['primary']);
    expect(router.kinds()).toEqual(['primary', 'secondary']);
    expect(router.has_kind('secondary')).toBe(true);
  });

  it('refuses a duplicate kind and an empty chain', () => {
    const { router } = setup({ a: [] });
    expect(() => router.register_kind('a', () => scripted({ kind: 'a', model: 'm' }, []))).toThrow(
      /already registered/,
    );
    expect(() => new ProviderRouter({ chain: [] })).toThrow(/chain is empty/);
  });

  it('fails over past an unknown kind and a factory that throws', async () => {
    const router = new ProviderRouter({
      chain: [
        { kind: 'missing', model: 'x' },
        { kind: 'broken', model: 'y' },
        { kind: 'good', model: 'z' },
      ],
      kinds: {
        broken: () => {
          throw new Error('api_key is required');
        },
        good: (config) => scripted(config, [answer('fine')]),
      },
    });
    const result = await router.chat_with_failover(USER, []);
    expect(result).toMatchObject({ provider: 'good', model: 'z', message: { content: 'fine' } });
  });

  it('reports an unknown kind as a config error naming the known kinds', async () => {
    const router = new ProviderRouter({
      chain: [{ kind: 'nope', model: 'm' }],
      kinds: { openai_compat: () => scripted({ kind: 'x', model: 'm' }, []) },
    });
    await expect(router.chat_with_failover(USER, [])).rejects.toMatchObject({
      kind: 'config',
      message: "nope (m): config error: unknown provider kind 'nope' (known: openai_compat)",
    });
  });
});

describe('chat_with_failover', () => {
  it('500 then 200: exactly one retry after the first backoff, one answer', async () => {
    const { router, providers, events, sleeps } = setup({
      primary: [failure('primary', { status: 500 }), answer('ok')],
    });
    const result = await router.as_chat_fn()(USER, []);
    expect(result.message.content).toBe('ok');
    expect(providers.primary?.calls).toBe(2);
    expect(sleeps).toEqual([500]);
    expect(events).toEqual([
      {
        type: 'provider_retry',
        provider: 'primary',
        model: 'primary-model',
        index: 0,
        attempt: 1,
        max_retries: 2,
        delay_ms: 500,
        reason: 'primary (primary-model): HTTP 500',
        error_kind: 'http',
        status: 500,
      },
    ]);
  });

  it('backs off 500, 1000 and then fails over; retries are bounded', async () => {
    const { router, providers, events, sleeps } = setup({
      primary: [
        failure('primary', { status: 503 }),
        failure('primary', { status: 529 }),
        failure('primary', { kind: 'network' }),
      ],
      secondary: [answer('from secondary')],
    });
    const result = await router.chat_with_failover(USER, []);
    expect(result).toMatchObject({ provider: 'secondary', message: { content: 'from secondary' } });
    expect(providers.primary?.calls).toBe(3);
    expect(sleeps).toEqual([500, 1000]);
    expect(events.map((event) => event.type)).toEqual([
      'provider_retry',
      'provider_retry',
      'provider_failover',
    ]);
    expect(events[2]).toMatchObject({
      from_provider: 'primary',
      to_provider: 'secondary',
      from_index: 0,
      to_index: 1,
      error_kind: 'network',
    });
  });

  it('honours retry_after_ms, and moves on when it is over the cap', async () => {
    const { router, sleeps, providers } = setup(
      {
        primary: [
          failure('primary', { status: 429, retry_after_ms: 2000 }),
          failure('primary', { status: 429, retry_after_ms: 120_000 }),
        ],
        secondary: [answer('b')],
      },
      { retry_after_cap_ms: 60_000 },
    );
    await router.chat_with_failover(USER, []);
    expect(sleeps).toEqual([2000]);
    expect(providers.primary?.calls).toBe(2);
    expect(providers.secondary?.calls).toBe(1);
  });

  it('caps the exponential backoff', async () => {
    const { router, sleeps } = setup(
      { primary: Array.from({ length: 6 }, () => failure('primary', { kind: 'timeout' })) },
      { max_retries: 5, backoff_base_ms: 100, backoff_max_ms: 700 },
    );
    await expect(router.chat_with_failover(USER, [])).rejects.toMatchObject({ kind: 'timeout' });
    expect(sleeps).toEqual([100, 200, 400, 700, 700]);
  });

  it('401, 400, 404 and quota errors move on without a retry', async () => {
    const { router, providers, sleeps } = setup({
      a: [failure('a', { status: 401 })],
      b: [failure('b', { status: 400 })],
      c: [failure('c', { status: 404 })],
      d: [failure('d', { status: 429, code: 'insufficient_quota' })],
      e: [answer('e answers')],
    });
    expect((await router.chat_with_failover(USER, [])).message.content).toBe('e answers');
    expect(sleeps).toEqual([]);
    for (const kind of ['a', 'b', 'c', 'd']) expect(providers[kind]?.calls).toBe(1);
  });

  it('x-should-retry forces (on a 400) and forbids (on a 500)', async () => {
    const { router, providers } = setup({
      a: [
        failure('a', { status: 400, retryable: true }),
        failure('a', { status: 500, retryable: false }),
      ],
      b: [answer('b')],
    });
    await router.chat_with_failover(USER, []);
    expect(providers.a?.calls).toBe(2);
  });

  it('all providers down: one error naming each provider, model and why', async () => {
    const { router } = setup({
      openai_compat: [
        failure('openai_compat', {
          kind: 'network',
          cause: new Error('connect ECONNREFUSED 127.0.0.1:9'),
        }),
        failure('openai_compat', {
          kind: 'network',
          cause: new Error('connect ECONNREFUSED 127.0.0.1:9'),
        }),
        failure('openai_compat', {
          kind: 'network',
          cause: new Error('connect ECONNREFUSED 127.0.0.1:9'),
        }),
      ],
      anthropic: [
        failure('anthropic', {
          status: 401,
          code: 'authentication_error',
          provider_message: 'invalid x-api-key',
        }),
      ],
    });
    const error = await router.chat_with_failover(USER, []).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderChainError);
    expect(ProviderError.is_instance(error)).toBe(true);
    const chain_error = error as ProviderChainError;
    expect(chain_error.message).toBe(
      'all 2 providers failed: openai_compat (openai_compat-model): network error: connect ECONNREFUSED 127.0.0.1:9 (3 attempts); ' +
        'anthropic (anthropic-model): HTTP 401 authentication_error: invalid x-api-key (1 attempt)',
    );
    expect(chain_error).toMatchObject({
      kind: 'http',
      status: 401,
      provider: 'anthropic',
      retryable: false,
    });
    expect(chain_error.failures).toHaveLength(2);
  });

  it('a single provider failing rejects with its own error', async () => {
    const own = failure('solo', { status: 403, provider_message: 'forbidden' });
    const { router } = setup({ solo: [own] });
    await expect(router.chat_with_failover(USER, [])).rejects.toBe(own);
  });

  it('a failure after deltas were delivered is thrown at once: no retry, no failover, no repeat', async () => {
    const { router, providers } = setup({
      primary: [
        async (options) => {
          options.on_delta?.({ kind: 'text', text: 'Hello, wor' });
          throw failure('primary', {
            kind: 'stream',
            cause: new Error('the connection broke mid-stream'),
          });
        },
      ],
      secondary: [answer('never')],
    });
    const deltas: ChatDelta[] = [];
    const error = (await router
      .chat_with_failover(USER, [], { on_delta: (delta) => deltas.push(delta) })
      .catch((caught: unknown) => caught)) as ProviderError;
    expect(error.delivered).toBe(true);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('broke off after part of it was streamed; not retried');
    expect(deltas.map((delta) => delta.text).join('')).toBe('Hello, wor');
    expect(providers.primary?.calls).toBe(1);
    expect(providers.secondary).toBeUndefined();
  });

  it('with buffered output (restartable) a cut after deltas is retried from the start (C4)', async () => {
    const { router, providers } = setup({
      primary: [
        async (options) => {
          options.on_delta?.({ kind: 'text', text: 'Hello, wor' });
          throw failure('primary', {
            kind: 'stream',
            cause: new Error('the connection broke mid-stream'),
          });
        },
        async (options) => {
          options.on_delta?.({ kind: 'text', text: 'Hello, world' });
          return { message: { role: 'assistant', content: 'Hello, world' }, finish_reason: 'stop' };
        },
      ],
    });
    let deltas: string[] = [];
    let restarts = 0;
    const result = await router.chat_with_failover(USER, [], {
      on_delta: (delta) => deltas.push(delta.text),
      restartable: true,
      on_restart: () => {
        restarts += 1;
        deltas = [];
      },
    });
    expect(result.message.content).toBe('Hello, world');
    expect(restarts).toBe(1);
    expect(deltas.join('')).toBe('Hello, world');
    expect(providers.primary?.calls).toBe(2);
  });

  it('a provider marking its error delivered is not retried either', async () => {
    const { router, providers } = setup({
      primary: [failure('primary', { status: 500, delivered: true })],
      secondary: [answer('never')],
    });
    await expect(router.chat_with_failover(USER, [])).rejects.toMatchObject({ delivered: true });
    expect(providers.primary?.calls).toBe(1);
  });

  it('an abort during the (real) backoff rejects at once and makes no further request', async () => {
    const controller = new AbortController();
    // a backoff longer than the test timeout: only an abort that cuts the wait lets it pass
    const { router, providers } = setup(
      { primary: [failure('primary', { status: 503 }), answer('too late')] },
      {
        sleep: undefined,
        backoff_base_ms: 60_000,
        on_event: (event) => {
          if (event.type === 'provider_retry') queueMicrotask(() => controller.abort());
        },
      },
    );
    const pending = router.chat_with_failover(USER, [], { signal: controller.signal });
    await expect(pending).rejects.toMatchObject({ kind: 'aborted', retryable: false });
    expect(providers.primary?.calls).toBe(1);
  });

  it('never retries when the caller aborted during the call, nor calls at all when aborted', async () => {
    const controller = new AbortController();
    const { router, providers } = setup({
      primary: [
        async () => {
          controller.abort();
          throw new DOMException('aborted', 'AbortError');
        },
      ],
      secondary: [answer('never')],
    });
    await expect(
      router.chat_with_failover(USER, [], { signal: controller.signal }),
    ).rejects.toMatchObject({
      kind: 'aborted',
    });
    await expect(
      router.chat_with_failover(USER, [], { signal: controller.signal }),
    ).rejects.toMatchObject({
      kind: 'aborted',
    });
    expect(providers.primary?.calls).toBe(1);
    expect(providers.secondary).toBeUndefined();
  });

  it('wraps a plain error from a provider and survives a throwing listener', async () => {
    const { router } = setup(
      { buggy: [new TypeError('x is undefined')], b: [answer('b')] },
      {
        on_event: () => {
          throw new Error('listener bug');
        },
      },
    );
    expect((await router.chat_with_failover(USER, [])).provider).toBe('b');
  });

  it('passes messages, tools and options through and keeps the provider-named result', async () => {
    let seen: ChatOptions | undefined;
    const { router } = setup({
      p: [
        async (options) => {
          seen = options;
          return { ...answer('x'), provider: 'p-actual', model: 'p-2' };
        },
      ],
    });
    const result = await router.chat_with_failover(USER, [], { max_tokens: 7 });
    expect(seen?.max_tokens).toBe(7);
    expect(seen?.on_delta).toBeUndefined();
    expect(result).toMatchObject({ provider: 'p-actual', model: 'p-2' });
  });
});

describe('circuit breaker', () => {
  it('passes over a failed provider until its cool-down is over, then tries it again', async () => {
    let now = 1_000;
    const { router, providers, events } = setup(
      {
        primary: [failure('primary', { status: 401 }), answer('back')],
        secondary: [answer('one'), answer('two'), answer('three')],
      },
      { cooldown_ms: 60_000, now: () => now },
    );
    expect((await router.chat_with_failover(USER, [])).message.content).toBe('one');
    now += 59_999;
    expect((await router.chat_with_failover(USER, [])).message.content).toBe('two');
    expect(providers.primary?.calls).toBe(1);
    expect(events.filter((event) => event.type === 'provider_failover')).toHaveLength(1);
    now += 1;
    expect((await router.chat_with_failover(USER, [])).message.content).toBe('back');
    expect(providers.primary?.calls).toBe(2);
    expect(providers.secondary?.calls).toBe(2);
  });

  it('a longer retry-after lengthens the cool-down', async () => {
    let now = 0;
    const { router, providers } = setup(
      {
        primary: [failure('primary', { status: 429, retryable: true, retry_after_ms: 120_000 })],
        secondary: [answer('one'), answer('two')],
      },
      { cooldown_ms: 60_000, retry_after_cap_ms: 1_000, now: () => now },
    );
    await router.chat_with_failover(USER, []);
    now = 90_000;
    expect((await router.chat_with_failover(USER, [])).message.content).toBe('two');
    expect(providers.primary?.calls).toBe(1);
  });

  it('tries a cooling provider as a last resort, and announces each switch from the one tried', async () => {
    const now = 0;
    const { router, providers, events } = setup(
      {
        primary: [failure('primary', { status: 401 }), answer('last resort')],
        secondary: [answer('one'), failure('secondary', { status: 401 })],
      },
      { now: () => now },
    );
    await router.chat_with_failover(USER, []);
    expect((await router.chat_with_failover(USER, [])).message.content).toBe('last resort');
    expect(providers.primary?.calls).toBe(2);
    const switches = events.filter((event) => event.type === 'provider_failover');
    expect(switches.map((event) => [event.from_index, event.to_index])).toEqual([
      [0, 1],
      [1, 0],
    ]);
  });

  it('cooldown_ms 0 turns it off', async () => {
    const { router, providers } = setup(
      {
        primary: [failure('primary', { status: 401 }), answer('again')],
        secondary: [answer('one')],
      },
      { cooldown_ms: 0 },
    );
    await router.chat_with_failover(USER, []);
    expect((await router.chat_with_failover(USER, [])).message.content).toBe('again');
    expect(providers.primary?.calls).toBe(2);
  });
});
