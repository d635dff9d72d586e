/**
 * The provider contract as a vitest suite: what every `LLMProvider` must do against a fake server
 * of its wire format. A provider package runs it in a few lines, and writes its own tests only for
 * what is particular to it (the exact request body, recorded streams, its options), with the
 * harness the suite returns:
 *
 * ```ts
 * const ollama = provider_contract_suite({
 *   format: 'ollama',
 *   kind: OLLAMA_KIND,
 *   create: (config) => create_ollama_provider({ kind: OLLAMA_KIND, model: 'qwen3:8b', ...config }),
 *   no_stream_options: { stream: false },
 *   reasoning_options: { think: true },
 * });
 * it('sends think', async () => { … (await ollama.chat()).request?.body … });
 * ```
 */
import { describe, expect, it } from 'vitest';
import {
  type ContractConfig,
  type HarnessSpec,
  type ProviderHarness,
  provider_harness,
  WEATHER_TOOL,
} from './provider_harness.js';
import { unused_port_url } from './unused_port.js';

/** How to run the contract suite for one provider package. */
export interface ProviderContractSpec<Config extends ContractConfig> extends HarnessSpec<Config> {
  /** The kind the provider names itself with, in results and errors. */
  kind: string;
  /** `config.options` that turn streaming off. */
  no_stream_options: Record<string, unknown>;
  /** `config.options` that make the API send reasoning, when it must be asked. */
  reasoning_options?: Record<string, unknown>;
  /**
   * The variable an authentication error must tell the user to set (when the config names
   * none), e.g. `GEMINI_API_KEY`; left out for an API without keys.
   */
  key_env?: string;
}

/**
 * Registers the contract suite (one `describe`) for the provider that `spec` builds, and returns
 * the harness (its fake server, `chat`, `failure`) for the package's own tests in the same file.
 */
export function provider_contract_suite<Config extends ContractConfig>(
  spec: ProviderContractSpec<Config>,
): ProviderHarness<Config> {
  const harness = provider_harness(spec);
  const { chat, failure } = harness;
  const options = (options: Record<string, unknown> | undefined) =>
    ({ options }) as Partial<Config>;
  describe(`the provider contract (${spec.kind})`, () => {
    it('streams text once, in order, and names the provider and the model', async () => {
      harness.server.enqueue({ text: 'Hello there, wörld 🙂', chunk_chars: 3 });
      const { result, deltas, requests } = await chat();
      expect(requests).toBe(1);
      expect(deltas.length).toBeGreaterThan(3);
      expect(deltas.every((delta) => delta.kind === 'text')).toBe(true);
      expect(deltas.map((delta) => delta.text).join('')).toBe('Hello there, wörld 🙂');
      expect(result).toMatchObject({
        message: { role: 'assistant', content: 'Hello there, wörld 🙂' },
        finish_reason: 'stop',
        provider: spec.kind,
      });
      expect(result.message.tool_calls).toBeUndefined();
    });

    it('answers without streaming, and never calls on_delta then', async () => {
      harness.server.enqueue({ text: 'plain answer' });
      const { result, deltas, request } = await chat(undefined, {
        config: options(spec.no_stream_options),
      });
      expect(request?.stream).toBe(false);
      expect(deltas).toEqual([]);
      expect(result.message).toMatchObject({ role: 'assistant', content: 'plain answer' });
    });

    it('returns parallel tool calls with their JSON arguments and distinct ids', async () => {
      harness.server.enqueue({
        tool_calls: [
          { name: 'weather', arguments: { city: 'Oslo' } },
          { name: 'weather', arguments: { city: 'Rome' } },
        ],
      });
      const { result, deltas } = await chat(undefined, { tools: [WEATHER_TOOL] });
      expect(deltas.filter((delta) => delta.kind === 'text')).toEqual([]);
      expect(result.finish_reason).toBe('tool_calls');
      const calls = result.message.tool_calls ?? [];
      expect(calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
        ['weather', { city: 'Oslo' }],
        ['weather', { city: 'Rome' }],
      ]);
      expect(calls.every((call) => typeof call.id === 'string' && call.id !== '')).toBe(true);
      expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    });

    it('streams reasoning apart from the text, and keeps it in message.reasoning', async () => {
      harness.server.enqueue({ reasoning: 'Two plus two.', text: '4' });
      const { result, deltas } = await chat(undefined, {
        config: options(spec.reasoning_options),
      });
      const reasoning = deltas.filter((delta) => delta.kind === 'reasoning');
      expect(reasoning.map((delta) => delta.text).join('')).toBe('Two plus two.');
      expect(deltas.at(-1)).toEqual({ kind: 'text', text: '4' });
      expect(result.message).toMatchObject({ content: '4', reasoning: 'Two plus two.' });
    });

    it('reports the usage the API sent', async () => {
      harness.server.enqueue({ text: 'ok', usage: { input_tokens: 26, output_tokens: 9 } });
      const streamed = await chat();
      expect(streamed.result.usage).toMatchObject({ input_tokens: 26, output_tokens: 9 });
      harness.server.enqueue({ text: 'ok', usage: { input_tokens: 4, output_tokens: 2 } });
      const whole = await chat(undefined, { config: options(spec.no_stream_options) });
      expect(whole.result.usage).toMatchObject({ input_tokens: 4, output_tokens: 2 });
    });

    const STATUSES: [status: number, retryable: boolean][] = [
      [400, false],
      [401, false],
      [429, true],
      [500, true],
      [529, true],
    ];
    for (const [status, retryable] of STATUSES) {
      it(`maps HTTP ${status} to an http error with the API's message, in one request`, async () => {
        harness.server.enqueue({ kind: 'status', status, message: `status ${status} says no` });
        const { error, requests } = await failure();
        expect(requests).toBe(1);
        expect(error).toMatchObject({
          kind: 'http',
          provider: spec.kind,
          status,
          provider_message: `status ${status} says no`,
          retryable,
          delivered: false,
        });
      });
    }

    if (spec.key_env !== undefined) {
      const key_env = spec.key_env;
      it('names the variable to set when the API refuses the key', async () => {
        harness.server.enqueue({ kind: 'status', status: 401 });
        const { error } = await failure();
        expect(error).toMatchObject({ kind: 'http', status: 401, retryable: false });
        expect(error.message).toContain(`(set ${key_env}`);
      });
    }

    it('honours retry-after on a 429', async () => {
      harness.server.enqueue({ kind: 'status', status: 429, retry_after: 2 });
      expect((await failure()).error).toMatchObject({ status: 429, retry_after_ms: 2000 });
    });

    it('fails an error reported after the 200, marked delivered', async () => {
      harness.server.enqueue({ text: 'Partial', error_event: { message: 'upstream died' } });
      const { error, deltas } = await failure();
      expect(deltas.map((delta) => delta.text).join('')).toBe('Partial');
      expect(error).toMatchObject({ provider_message: 'upstream died', delivered: true });
      expect(['stream', 'http']).toContain(error.kind);
    });

    it('fails a cut stream with kind stream, saying whether anything was delivered', async () => {
      harness.server.enqueue({
        kind: 'cut',
        after_bytes: 1500,
        reply: { text: 'a long answer '.repeat(200) },
      });
      const late = await failure();
      expect(late.error).toMatchObject({ kind: 'stream', delivered: true, retryable: true });
      expect(late.deltas.length).toBeGreaterThan(0);
      harness.server.enqueue({ kind: 'cut', after_bytes: 1, reply: { text: 'never seen' } });
      const early = await failure();
      expect(early.error).toMatchObject({ kind: 'stream', delivered: false, retryable: true });
      expect(early.deltas).toEqual([]);
    });

    it('fails a stream that ends without its final event', async () => {
      harness.server.enqueue({ text: 'partial answer', unterminated: true });
      expect((await failure()).error).toMatchObject({ kind: 'stream', delivered: true });
    });

    it('rejects a 200 HTML page as a parse error', async () => {
      harness.server.enqueue({ kind: 'html' });
      expect((await failure()).error).toMatchObject({ kind: 'parse', retryable: false });
    });

    it('reports a refused connection as a network error', async () => {
      const { error } = await failure(undefined, {
        config: { base_url: await unused_port_url() } as Partial<Config>,
      });
      expect(error).toMatchObject({ kind: 'network', retryable: true });
    });

    it('gives up on a stalled stream after the idle timeout', async () => {
      harness.server.enqueue({ kind: 'stall', headers: true });
      expect(
        (await failure(undefined, { config: { idle_timeout_ms: 200 } as Partial<Config> })).error,
      ).toMatchObject({
        kind: 'timeout',
        retryable: true,
      });
    });

    it('rejects with kind aborted when the caller aborts mid-stream, delivering nothing more', async () => {
      harness.server.enqueue({ text: 'slow '.repeat(50), chunk_chars: 5, chunk_delay_ms: 20 });
      const controller = new AbortController();
      let seen = 0;
      const { error } = await failure(undefined, {
        signal: controller.signal,
        on_delta: () => {
          seen += 1;
          if (seen === 2) controller.abort();
        },
      });
      expect(error).toMatchObject({ kind: 'aborted', retryable: false });
      expect(seen).toBe(2);
    });

    it('rejects at once, without a request, when the signal has already fired', async () => {
      const { error, requests } = await failure(undefined, { signal: AbortSignal.abort() });
      expect(error.kind).toBe('aborted');
      expect(requests).toBe(0);
    });
  });
  return harness;
}
