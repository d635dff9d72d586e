import type { ChatDelta, ChatOptions, ChatResult, Message, ToolDefinition } from '@lich/core';
import { afterAll, beforeAll } from 'vitest';
import { type FakeServer, type FakeServerOptions, start_fake_server } from './fake_server.js';
import type { RecordedRequest, WireFormat } from './script.js';

/** What a provider test needs of a provider: `LLMProvider` of `@lich/providers` has it. */
export interface ContractProvider {
  readonly kind: string;
  readonly model: string;
  chat(
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    options?: ChatOptions,
  ): Promise<ChatResult>;
}

/** The part of a provider config the harness always sets. */
export interface ContractConfig {
  base_url: string;
  idle_timeout_ms?: number;
  options?: Record<string, unknown>;
}

/** The fields of a `ProviderError` that provider tests read. */
export interface HarnessError extends Error {
  kind: string;
  provider: string;
  model: string;
  status: number | undefined;
  code: string | undefined;
  provider_message: string | undefined;
  request_id: string | undefined;
  retry_after_ms: number | undefined;
  retryable: boolean;
  delivered: boolean;
}

/** Options of one harness call: chat options, config overrides, the tools, another server. */
export type HarnessCallOptions<Config extends ContractConfig> = ChatOptions & {
  config?: Partial<Config>;
  tools?: ToolDefinition[];
  /** Send to this server instead of the harness's own (e.g. one started with other options). */
  server?: FakeServer;
};

/** A provider under test against its own fake server, started before and closed after the file. */
export interface ProviderHarness<Config extends ContractConfig> {
  /** The fake server (available from `beforeAll` on). */
  readonly server: FakeServer;
  /** One successful call: its result, the deltas, the last request, how many requests it made. */
  chat(
    messages?: readonly Message[],
    options?: HarnessCallOptions<Config>,
  ): Promise<{
    result: ChatResult;
    deltas: ChatDelta[];
    request: RecordedRequest | undefined;
    requests: number;
  }>;
  /** One call that must fail with a `ProviderError`; throws when it does not. */
  failure(
    messages?: readonly Message[],
    options?: HarnessCallOptions<Config>,
  ): Promise<{ error: HarnessError; deltas: ChatDelta[]; requests: number }>;
}

/** How the harness builds the provider under test. */
export interface HarnessSpec<Config extends ContractConfig> {
  format: WireFormat;
  /** Builds the provider from the harness's config (the server's base URL and any overrides). */
  create(config: Config): ContractProvider;
  server_options?: Omit<FakeServerOptions, 'format'>;
}

/** The conversation a call sends when a test gives none. */
export const HARNESS_USER: readonly Message[] = [{ role: 'user', content: 'hi' }];

/** A tool definition for tests that offer one. */
export const WEATHER_TOOL: ToolDefinition = {
  name: 'weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function is_provider_error(value: unknown): value is HarnessError {
  return value instanceof Error && value.name === 'ProviderError' && 'kind' in value;
}

/**
 * Starts a fake server of `spec.format` in `beforeAll` and closes it in `afterAll` (call it at the
 * top of a test file or inside a `describe`), and returns helpers that call the provider.
 */
export function provider_harness<Config extends ContractConfig>(
  spec: HarnessSpec<Config>,
): ProviderHarness<Config> {
  let server: FakeServer | undefined;
  beforeAll(async () => {
    server = await start_fake_server({ ...spec.server_options, format: spec.format });
  });
  afterAll(async () => {
    await server?.close();
  });
  const started = (): FakeServer => {
    if (server === undefined) throw new Error('the harness server starts in beforeAll');
    return server;
  };
  const call = async (messages: readonly Message[], options: HarnessCallOptions<Config>) => {
    const { config, tools, server: other, ...chat_options } = options;
    const target = other ?? started();
    const provider = spec.create({ base_url: target.base_url, ...config } as Config);
    const deltas: ChatDelta[] = [];
    const before = target.requests.length;
    const outcome = await provider
      .chat(messages, tools ?? [], { on_delta: (delta) => deltas.push(delta), ...chat_options })
      .then(
        (result) => ({ ok: true as const, result }),
        (error: unknown) => ({ ok: false as const, error }),
      );
    return { outcome, deltas, target, requests: target.requests.length - before };
  };
  return {
    get server() {
      return started();
    },
    async chat(messages = HARNESS_USER, options = {}) {
      const { outcome, deltas, target, requests } = await call(messages, options);
      if (!outcome.ok) throw outcome.error;
      return { result: outcome.result, deltas, request: target.requests.at(-1), requests };
    },
    async failure(messages = HARNESS_USER, options = {}) {
      const { outcome, deltas, requests } = await call(messages, options);
      if (outcome.ok) throw new Error('expected a ProviderError, the call succeeded');
      if (!is_provider_error(outcome.error)) {
        throw new Error(`expected a ProviderError, got ${String(outcome.error)}`);
      }
      return { error: outcome.error, deltas, requests };
    },
  };
}
