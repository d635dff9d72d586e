import type {
  JsonSchema,
  Tool,
  ToolContext,
  ToolOutput,
  ToolResult,
  ToolRunContext,
  ToolRunner,
} from '@lich/core';
import { truncate_text } from '@lich/core';
import { nearest_names } from './nearest_names.js';
import type { ToolRegistry } from './registry.js';
import { Sandbox } from './sandbox/sandbox.js';
import type { SandboxConfig } from './sandbox/sandbox_config.js';
import { parse_arguments } from './schema.js';

/** What a `before_tool_call` hook decides: block the call (with a reason the model reads), or rewrite its arguments. */
export interface BeforeToolCallResult {
  /** When set, the call is not made; the model is told this reason. */
  block?: string;
  /** With `block`: a few words for people (the result's `error`), `declined` say; default `block`. */
  summary?: string;
  /** When set, the call runs with these arguments instead (validated again). */
  args?: unknown;
}

/** A hook's return: a value, nothing (a hook written as plain statements), or a promise of either. */
// biome-ignore lint/suspicious/noConfusingVoidType: hooks written as plain statements return void
export type HookReturn<T> = T | undefined | void | Promise<T | undefined | void>;

/**
 * Hook points around every tool call (plugins attach here).
 *
 * Contract, as the executor applies it:
 * - `before_tool_call` sees validated arguments; hooks run in order, each seeing the arguments the
 *   previous one left; the first `block` wins and the tool never runs; a hook that throws blocks
 *   the call (fail closed) with its message;
 * - `after_tool_call` sees the final result (after clamping); it may return a replacement result
 *   (clamped again); a hook that throws is ignored and the result stands.
 */
export interface ToolHooks {
  before_tool_call?(
    name: string,
    args: unknown,
    context: ToolRunContext,
  ): HookReturn<BeforeToolCallResult>;
  after_tool_call?(
    name: string,
    args: unknown,
    result: ToolResult,
    context: ToolRunContext,
  ): HookReturn<ToolResult>;
}

/** Settings of a `ToolExecutor`. */
export interface ToolExecutorOptions {
  /** The folder tools work in; a call's `context.work_dir` overrides it. */
  work_dir: string;
  /** Time limit of a call whose tool declares no `timeout_ms`. Default 30 000 ms. */
  default_timeout_ms?: number;
  /** Output longer than this is clamped, head and tail kept. Default 50 000 characters. */
  max_output_chars?: number;
  /** Hooks run around every call, in order. More can be added with `add_hooks`. */
  hooks?: ToolHooks | readonly ToolHooks[];
  /**
   * After a timeout or an abort, how long to wait for the tool to stop (so what it started is
   * cleaned up before the result is reported). Default 2 000 ms.
   */
  settle_ms?: number;
  /**
   * How `terminal` and `run_tests` confine commands: a `Sandbox`, or its config
   * (`{ mode, network, writable }`); `mode: 'auto'`, no network, when absent. The executor hands
   * it to every call as `context.sandbox`, over whatever the caller's context holds, so no hook
   * or permission decision can turn it off.
   */
  sandbox?: Sandbox | Partial<SandboxConfig>;
}

/** The executor's default time limit of one call. */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/** The executor's default output limit. */
export const DEFAULT_MAX_OUTPUT_CHARS = 50_000;

type Settled =
  | { kind: 'value'; output: ToolOutput }
  | { kind: 'error'; error: unknown }
  | { kind: 'stopped' };

/**
 * Runs registered tools by name for the loop.
 *
 * Contract:
 * - `execute` never throws and never rejects: an unknown tool (nearest names listed), invalid
 *   arguments (the validation message), a blocking hook, a timeout (the tool's `timeout_ms`, else
 *   `default_timeout_ms`), an abort of `context.signal`, or a throwing tool each give
 *   `{ ok: false, output, error }` with an `output` the model can act on;
 * - the tool sees one signal that fires on the run's abort or on the timeout, whichever is first;
 *   once it fires the executor waits at most `settle_ms` for the tool to stop, then reports;
 * - `output` is clamped to `max_output_chars` (head and tail kept, the cut marked, `truncated` set);
 * - `duration_ms` is always set; for a call that ran, it is the tool's own time from the moment
 *   the hooks (an approval included) let it through, which is also when `context.on_running` is
 *   called.
 */
export class ToolExecutor implements ToolRunner {
  readonly registry: ToolRegistry;
  readonly work_dir: string;
  readonly default_timeout_ms: number;
  readonly max_output_chars: number;
  readonly settle_ms: number;
  readonly sandbox: Sandbox;
  readonly #hooks: ToolHooks[] = [];

  constructor(registry: ToolRegistry, options: ToolExecutorOptions) {
    if (typeof options?.work_dir !== 'string' || options.work_dir === '') {
      throw new TypeError('ToolExecutor: options.work_dir is required');
    }
    this.registry = registry;
    this.work_dir = options.work_dir;
    this.default_timeout_ms = positive(options.default_timeout_ms, DEFAULT_TOOL_TIMEOUT_MS);
    this.max_output_chars = Math.max(
      200,
      Math.floor(positive(options.max_output_chars, DEFAULT_MAX_OUTPUT_CHARS)),
    );
    this.settle_ms =
      options.settle_ms !== undefined && options.settle_ms >= 0 ? options.settle_ms : 2_000;
    this.sandbox = Sandbox.is_instance(options.sandbox)
      ? options.sandbox
      : new Sandbox(options.sandbox ?? {});
    if (options.hooks !== undefined) this.add_hooks(options.hooks);
  }

  /** Adds hooks after the ones already present; returns a function that removes them again. */
  add_hooks(hooks: ToolHooks | readonly ToolHooks[]): () => void {
    const added = Array.isArray(hooks)
      ? [...(hooks as readonly ToolHooks[])]
      : [hooks as ToolHooks];
    this.#hooks.push(...added);
    return () => {
      for (const hook of added) {
        const index = this.#hooks.indexOf(hook);
        if (index >= 0) this.#hooks.splice(index, 1);
      }
    };
  }

  /** Runs one tool call. Never throws; see the class contract. */
  async execute(name: string, args: unknown, context: ToolContext = {}): Promise<ToolResult> {
    const started = performance.now();
    try {
      const tool = this.registry.get(name);
      if (tool === undefined) return this.#finish(this.#unknown_tool(name), started);
      const json_schema = this.registry.json_schema(name) ?? {};
      const parsed = parse_arguments(name, tool.parameters, json_schema, args);
      if (!parsed.ok) {
        return this.#finish({ ok: false, output: parsed.error, error: parsed.error }, started);
      }

      const stop = new CallStop(context.signal);
      return await this.#call(tool, name, json_schema, parsed.args, context, stop, started);
    } catch (error) {
      // nothing above should throw; this is the last line of the never-throw contract
      const reason = `internal error running '${name}': ${message_of(error)}`;
      return this.#finish({ ok: false, output: reason, error: reason }, started);
    }
  }

  /**
   * The hooks before the call, the tool and the hooks after it, for one call whose arguments are
   * valid. A hook that answers at once (no promise) is not awaited: most calls pass every hook
   * that way. (The hooks are methods of their own: inlined here, V8 spent some 18 ms optimizing
   * this one function in each process.)
   */
  async #call(
    tool: Tool<unknown>,
    name: string,
    json_schema: JsonSchema,
    args: unknown,
    context: ToolContext,
    stop: CallStop,
    started: number,
  ): Promise<ToolResult> {
    const run_context: ToolRunContext = {
      ...context,
      work_dir: typeof context.work_dir === 'string' ? context.work_dir : this.work_dir,
      // made when first read: most calls end without anyone asking for it
      get signal() {
        return stop.signal;
      },
      max_output_chars: this.max_output_chars,
      sandbox: this.sandbox,
    };
    if (stop.aborted) return this.#finish(aborted_result(name), started);
    const checked = await this.#before_hooks(tool, name, json_schema, args, run_context);
    if (!checked.ok) return this.#finish(checked.refused, started);

    // a hook sees the context and could swap the sandbox: the executor's own one always runs
    run_context.sandbox = this.sandbox;
    const timeout_ms = positive(tool.timeout_ms, this.default_timeout_ms);
    // the checks passed (an approval included): the tool's own time starts now, so a duration
    // never counts the time a person took to answer
    const running = performance.now();
    try {
      context.on_running?.();
    } catch {
      // a listener's failure must not stop the call
    }
    const result = this.#finish(
      await this.#run(tool, checked.args, run_context, stop, timeout_ms),
      running,
    );
    return this.#after_hooks(name, checked.args, result, run_context, running);
  }

  /**
   * The `before_tool_call` hooks, in order: the arguments the call runs with, or the result of a
   * call they refused (a block, a hook that threw, rewritten arguments that do not validate).
   */
  async #before_hooks(
    tool: Tool<unknown>,
    name: string,
    json_schema: JsonSchema,
    args: unknown,
    run_context: ToolRunContext,
  ): Promise<
    { ok: true; args: unknown } | { ok: false; refused: Omit<ToolResult, 'duration_ms'> }
  > {
    const refused = (output: string, error: string) =>
      ({ ok: false, refused: { ok: false, output, error } }) as const;
    let call_args = args;
    for (const hook of this.#hooks) {
      if (hook.before_tool_call === undefined) continue;
      let decision: BeforeToolCallResult | undefined;
      try {
        const answer = hook.before_tool_call(name, call_args, run_context);
        decision = (is_promise(answer) ? await answer : answer) ?? undefined;
      } catch (error) {
        const reason = `a before_tool_call hook failed: ${message_of(error)}`;
        return refused(`Tool call '${name}' blocked: ${reason}`, reason);
      }
      if (decision?.block !== undefined) {
        const reason = String(decision.block);
        const error = decision.summary === undefined ? reason : String(decision.summary);
        return refused(`Tool call '${name}' blocked: ${reason}`, error);
      }
      if (decision?.args !== undefined) {
        const again = parse_arguments(name, tool.parameters, json_schema, decision.args);
        if (!again.ok) return refused(again.error, again.error);
        call_args = again.args;
      }
    }
    return { ok: true, args: call_args };
  }

  /** The `after_tool_call` hooks, in order, each may replace the result (clamped again). */
  async #after_hooks(
    name: string,
    args: unknown,
    result: ToolResult,
    run_context: ToolRunContext,
    running: number,
  ): Promise<ToolResult> {
    let final = result;
    for (const hook of this.#hooks) {
      if (hook.after_tool_call === undefined) continue;
      try {
        const answer = hook.after_tool_call(name, args, final, run_context);
        const replaced = is_promise(answer) ? await answer : answer;
        if (replaced !== undefined && replaced !== null && typeof replaced === 'object') {
          final = this.#finish(replaced, running);
        }
      } catch {
        // an observer's failure must not change what the model is told
      }
    }
    return final;
  }

  async #run(
    tool: Tool<unknown>,
    args: unknown,
    context: ToolRunContext,
    stop: CallStop,
    timeout_ms: number,
  ): Promise<Omit<ToolResult, 'duration_ms'>> {
    let timed_out = false;
    const timer = setTimeout(() => {
      timed_out = true;
      stop.abort(new Error(`timed out after ${timeout_ms} ms`));
    }, timeout_ms);
    let running: Promise<Settled>;
    try {
      running = Promise.resolve(tool.execute(args, context)).then(as_value, as_error);
    } catch (error) {
      // a tool that throws before returning its promise
      running = Promise.resolve({ kind: 'error', error });
    }
    let settled = await stop.race(running);
    clearTimeout(timer);

    if (settled.kind === 'value' && !stop.aborted) return from_output(settled.output);
    if (settled.kind === 'error' && !stop.aborted) {
      const reason = message_of(settled.error);
      return { ok: false, output: `Tool '${tool.name}' failed: ${reason}`, error: reason };
    }
    if (settled.kind === 'stopped') {
      // give the tool a moment to stop what it started, so the report comes after the cleanup
      settled = await Promise.race([running, delay<Settled>(this.settle_ms, { kind: 'stopped' })]);
    }
    const partial = settled.kind === 'value' ? from_output(settled.output).output : '';
    const base = timed_out
      ? {
          output: `Tool '${tool.name}' timed out after ${timeout_ms} ms and was stopped.`,
          error: `timed out after ${timeout_ms} ms`,
        }
      : { output: `Tool '${tool.name}' was aborted.`, error: 'aborted' };
    return {
      ok: false,
      output:
        partial === '' ? base.output : `${base.output}\nOutput before it stopped:\n${partial}`,
      error: base.error,
    };
  }

  /** The result as reported: clamped, with the time since `started`. */
  #finish(result: Omit<ToolResult, 'duration_ms'>, started: number): ToolResult {
    const clamped = this.#clamp(result) as ToolResult;
    clamped.duration_ms = Math.max(0, performance.now() - started);
    return clamped;
  }

  #clamp(result: Omit<ToolResult, 'duration_ms'>): Omit<ToolResult, 'duration_ms'> {
    const output = typeof result.output === 'string' ? result.output : String(result.output);
    const clamped: Omit<ToolResult, 'duration_ms'> = { ok: result.ok === true, output };
    if (result.error !== undefined) clamped.error = truncate_text(String(result.error), 2_000);
    if (result.truncated) clamped.truncated = true;
    if (typeof result.sandbox === 'string') clamped.sandbox = result.sandbox;
    if (result.untrusted === true) clamped.untrusted = true;
    if (result.images !== undefined && result.images.length > 0) clamped.images = result.images;
    if (output.length > this.max_output_chars) {
      clamped.output = truncate_text(output, this.max_output_chars);
      clamped.truncated = true;
    }
    return clamped;
  }

  #unknown_tool(name: string): Omit<ToolResult, 'duration_ms'> {
    const names = this.registry.names();
    const nearest = nearest_names(String(name), names);
    const hint =
      nearest.length > 0 ? ` Did you mean ${nearest.map((item) => `'${item}'`).join(' or ')}?` : '';
    const available =
      names.length === 0 ? 'No tools are available.' : `Available tools: ${names.join(', ')}.`;
    return {
      ok: false,
      output: `Unknown tool '${String(name)}'.${hint} ${available}`,
      error: `unknown tool '${String(name)}'`,
    };
  }
}

/**
 * How one call is stopped: the signal the tool sees (the run's abort or the call's time limit,
 * joined with `AbortSignal.any`), and `race`, which settles with `stopped` once it fires.
 */
class CallStop {
  readonly #controller = new AbortController();
  /** Fires on the run's abort or on the call's own stop (its timeout), whichever comes first. */
  readonly signal: AbortSignal;

  constructor(run_signal: AbortSignal | undefined) {
    this.signal =
      run_signal === undefined
        ? this.#controller.signal
        : AbortSignal.any([run_signal, this.#controller.signal]);
  }

  /** Whether the call was stopped. */
  get aborted(): boolean {
    return this.signal.aborted;
  }

  /** What `running` settles with, or `stopped` if the signal fires first (at once when it did). */
  race(running: Promise<Settled>): Promise<Settled> {
    if (this.aborted) return Promise.resolve(STOPPED);
    return new Promise<Settled>((resolve) => {
      const on_abort = () => resolve(STOPPED);
      this.signal.addEventListener('abort', on_abort, { once: true });
      running.then((settled) => {
        this.signal.removeEventListener('abort', on_abort);
        resolve(settled);
      });
    });
  }

  /** Stops the call (its timeout). */
  abort(reason: unknown): void {
    this.#controller.abort(reason);
  }
}

const STOPPED: Settled = { kind: 'stopped' };

function as_value(output: ToolOutput): Settled {
  return { kind: 'value', output };
}

function as_error(error: unknown): Settled {
  return { kind: 'error', error };
}

/** Whether `value` is a promise (or any thenable) to wait for. */
function is_promise(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}

function delay<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(resolve, ms, value).unref?.());
}

function message_of(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

function aborted_result(name: string): Omit<ToolResult, 'duration_ms'> {
  return { ok: false, output: `Tool '${name}' was aborted before it ran.`, error: 'aborted' };
}

function from_output(output: ToolOutput): Omit<ToolResult, 'duration_ms'> {
  if (typeof output === 'string') return { ok: true, output };
  if (output === null || typeof output !== 'object') return { ok: true, output: String(output) };
  const result: Omit<ToolResult, 'duration_ms'> = {
    ok: output.ok === true,
    output: typeof output.output === 'string' ? output.output : String(output.output ?? ''),
  };
  if (output.error !== undefined) result.error = String(output.error);
  else if (!result.ok) result.error = result.output.split('\n', 1)[0] || 'failed';
  if (typeof output.sandbox === 'string') result.sandbox = output.sandbox;
  if (output.untrusted === true) result.untrusted = true;
  if (Array.isArray(output.images) && output.images.length > 0) result.images = output.images;
  return result;
}
