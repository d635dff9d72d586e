/**
 * The think-act-observe loop: call the model, run the tools it asks for, feed the results back,
 * until it answers without tools, the turn budget runs out, or the caller aborts.
 */
import { is_budget_stop } from './budget_stop.js';
import { checked_result, without_tool_calls } from './chat_result.js';
import { should_compress } from './compressor.js';
import type { AgentEmitter, AgentEvent, StoppedReason } from './events.js';
import { compress_history, compression_settings } from './loop_compression.js';
import { race_abort } from './race_abort.js';
import { seed_system_prompt } from './seed_system_prompt.js';
import { estimate_definition_tokens, TokenCounter } from './tokens.js';
import { run_tool_calls } from './tool_calls.js';
import type {
  ChatDelta,
  ChatFn,
  ChatOptions,
  ChatResult,
  Message,
  ToolContext,
  ToolDefinition,
  ToolRunner,
} from './types.js';

/** What the model is told on the grace call, unless `LoopParams.grace_instruction` says otherwise. */
export const DEFAULT_GRACE_INSTRUCTION =
  'You have used every turn available for this task and can no longer call tools. ' +
  'Reply now with your final answer: what you did, what you found, and what is left undone.';

/** What the loop talks to. It imports no provider and no executor: these are all it knows. */
export interface LoopDeps {
  chat: ChatFn;
  tools: ToolRunner;
  /** The tools offered to the model; a call to any other name is refused without running. */
  definitions: readonly ToolDefinition[];
  emitter?: AgentEmitter;
  /** Handed to every tool call, with `signal` and `tool_call_id` set by the loop. */
  tool_context?: ToolContext;
}

/** When and how the loop compresses its history. */
export interface CompressionParams {
  /** Default true when `LoopParams.context_window` is set. */
  enabled?: boolean;
  /** The fraction of `context_window` at which to compress (default 0.75). */
  threshold?: number;
  /** How many of the newest messages to keep (default 8). */
  keep_recent?: number;
  /** State re-sent with the summary so it survives compression; see `CompressOptions.carry`. */
  carry?: (messages: readonly Message[]) => string | undefined;
}

/** The settings of one run. */
export interface LoopParams {
  /** The most model calls the run may make with tools offered; a positive integer. */
  max_turns: number;
  /** Applied with `seed_system_prompt` before the first turn. */
  system_prompt?: string;
  /** Aborts the run: checked at the top of each turn, passed to the model call and every tool. */
  signal?: AbortSignal;
  /** Run the tool calls of one turn at once (default true); results are appended in call order. */
  parallel_tools?: boolean;
  /**
   * Which tools may run alongside others (reads): when given, a turn's calls run at once only
   * when every one of them may; a turn with a write or a command among them runs its calls one
   * after another, in call order, so `write a; mv a b` never races. Absent: all may.
   */
  concurrent_tool?: (name: string) => boolean;
  /**
   * The caller shows no text as it streams (buffered output): a stream cut after some text may be
   * retried from the start (`ChatOptions.restartable`). Default false.
   */
  restartable_stream?: boolean;
  /** The model's context window in tokens; compression is off without it. */
  context_window?: number;
  compression?: CompressionParams;
  /** Make the wrap-up call without tools when the budget runs out (default true). */
  grace_call?: boolean;
  /** What the model is told on the grace call (default `DEFAULT_GRACE_INSTRUCTION`). */
  grace_instruction?: string;
  /**
   * Asked after each turn's tool results (not after a final answer): the messages it returns are
   * appended, in order, before the next model call (a `steer` event names them). A surface uses
   * it to put what a person typed mid-run in front of the model. A throw counts as none.
   */
  take_steering?: () => readonly Message[];
}

/** How a run ended. */
export interface LoopOutcome {
  /**
   * The history: the seed (system prompt applied), then every message of the run, with the middle
   * replaced by a summary where compression ran. A new array, valid as the seed of a next run.
   */
  messages: Message[];
  /**
   * The final answer's text; on an abort during the answer, the text streamed so far; null when
   * the run was aborted before any answer text, or ended at the budget without an answer.
   */
  final: string | null;
  /** The result of the last model call that completed (the grace call's without its tool calls). */
  last_result: ChatResult | null;
  /** Model calls made within the budget; the grace call is not counted. */
  turns_used: number;
  stopped_reason: StoppedReason;
}

/**
 * Runs a conversation from `seed` until the model answers without calling tools.
 *
 * Contract:
 * - Throws a `RangeError`/`TypeError` before anything runs for bad params (`max_turns` not a
 *   positive integer, a threshold outside (0, 1], …) or deps that are not what they say.
 * - Never mutates `seed` or its messages; the outcome holds a new array.
 * - Each turn: abort check, compression check, one model call (streamed as `llm_delta`), the
 *   assistant message appended, then one tool message per tool call in call order (the calls run
 *   in parallel unless `parallel_tools` is false). A turn without tool calls is final.
 * - When `max_turns` calls were made and the model still calls tools, `budget_exhausted` is
 *   emitted and one grace call is made with no tools offered and a wrap-up instruction that is not
 *   kept in the history; tool calls in its answer are dropped. `stopped_reason` is then
 *   'max_turns'.
 * - An abort (before a turn, during the model call, compression or a tool) ends the run with
 *   `stopped_reason: 'aborted'`, not an exception; every tool call in the history keeps a result
 *   (unfinished ones say "aborted"). Callees that ignore the signal are not waited for. Answer
 *   text streamed before an abort stays in the history as an assistant message (marked
 *   `INTERRUPTED_MARK`) and is the outcome's `final`.
 * - A `ChatFn` that rejects with a `BudgetStop` (a spending limit refused the call) ends the run
 *   with `stopped_reason: 'budget'` and no final answer; the history is kept.
 * - A rejecting `ChatFn` (not an abort) emits `run_end` with `stopped_reason: 'error'` and the
 *   original error is rethrown unchanged; a `ChatFn` that resolves without a message is such an
 *   error too.
 * - After each turn's tool results (unless aborted), `take_steering` is asked; what it returns is
 *   appended before the next model call and announced with a `steer` event.
 * - Listeners that throw never break the run (see `AgentEmitter`).
 */
export async function run_conversation(
  deps: LoopDeps,
  seed: readonly Message[],
  params: LoopParams,
): Promise<LoopOutcome> {
  check_inputs(deps, seed, params);
  const { chat, definitions, emitter } = deps;
  const { max_turns, signal } = params;
  const emit = (event: AgentEvent): void => emitter?.emit(event);
  const offered = new Set(definitions.map((definition) => definition.name));
  // one estimate of the context for the whole run: it decides compression and is what
  // `llm_start` reports, so a client's gauge is the figure that triggers compression
  const gauge = {
    counter: new TokenCounter(),
    definition_tokens: estimate_definition_tokens(definitions),
  };
  const compression = compression_settings(params, gauge);
  let messages = seed_system_prompt(seed, params.system_prompt);
  gauge.counter.reset(messages);
  let retry_compression_at = 0;
  let turns_used = 0;
  let last_result: ChatResult | null = null;

  const append = (message: Message): void => {
    messages.push(message);
    gauge.counter.add(message);
  };
  const finish = (stopped_reason: StoppedReason, final: string | null): LoopOutcome => {
    emit({ type: 'run_end', stopped_reason, turns_used, final, messages });
    return { messages, final, last_result, turns_used, stopped_reason };
  };

  emit({ type: 'run_start', messages: [...messages], max_turns });
  try {
    for (;;) {
      if (signal?.aborted) return finish('aborted', null);
      const grace = turns_used >= max_turns;
      if (grace) {
        emit({
          type: 'budget_exhausted',
          turns_used,
          max_turns,
          grace: params.grace_call !== false,
        });
        if (params.grace_call === false) return finish('max_turns', null);
      }

      if (compression !== null && messages.length >= retry_compression_at) {
        const estimated_tokens = compression.counter.tokens + compression.definition_tokens;
        if (should_compress(estimated_tokens, compression.context_window, compression.threshold)) {
          const compressed = await compress_history(messages, chat, compression, signal, emit);
          if (compressed === null) {
            // A broken summariser should cost one call per few turns, not one per turn.
            retry_compression_at = messages.length + compression.keep_recent;
          } else {
            messages = compressed;
            compression.counter.reset(messages);
          }
          if (signal?.aborted) return finish('aborted', null);
        }
      }

      const turn = turns_used + 1;
      if (!grace) turns_used = turn;
      const instruction = params.grace_instruction ?? DEFAULT_GRACE_INSTRUCTION;
      const request: readonly Message[] = grace
        ? [...messages, { role: 'user', content: instruction }]
        : messages;
      emit({
        type: 'llm_start',
        turn,
        grace,
        context_tokens: gauge.counter.tokens + (grace ? 0 : gauge.definition_tokens),
      });
      const started = performance.now();
      const result = await call_model(
        chat,
        request,
        grace ? [] : definitions,
        turn,
        signal,
        emit,
        params.restartable_stream === true,
      );
      if (!('result' in result)) {
        // the text streamed before the abort stays in the history, so the model knows what it
        // said, and is the run's answer so far
        const partial = result.partial_text;
        if (partial.trim() === '') return finish('aborted', null);
        append({ role: 'assistant', content: `${partial}${INTERRUPTED_MARK}` });
        return finish('aborted', partial);
      }
      const message = grace ? without_tool_calls(result.result.message) : result.result.message;
      last_result =
        message === result.result.message ? result.result : { ...result.result, message };
      append(message);
      const { finish_reason, usage, provider, model } = result.result;
      const duration_ms = performance.now() - started;
      emit({ type: 'llm_end', turn, message, finish_reason, usage, provider, model, duration_ms });
      if (grace) return finish('max_turns', message.content);
      if (message.tool_calls === undefined) return finish('final', message.content);

      await run_tool_calls({
        turn,
        calls: message.tool_calls,
        runner: deps.tools,
        offered,
        context: deps.tool_context,
        signal,
        parallel:
          params.parallel_tools !== false &&
          (params.concurrent_tool === undefined ||
            message.tool_calls.every((call) => params.concurrent_tool?.(call.name) === true)),
        emit,
        append,
      });
      if (signal?.aborted) continue;
      const steering = take_steering(params);
      if (steering.length > 0) {
        for (const message of steering) append(message);
        emit({ type: 'steer', turn, messages: steering });
      }
    }
  } catch (error) {
    // a refused call ends the run like the turn budget does, the history kept
    if (is_budget_stop(error)) return finish('budget', null);
    const text = error instanceof Error ? error.message : String(error);
    emit({
      type: 'run_end',
      stopped_reason: 'error',
      turns_used,
      final: null,
      messages,
      error: text,
    });
    throw error;
  }
}

/** What `params.take_steering` hands over; nothing when absent, when it throws or returns junk. */
function take_steering(params: LoopParams): Message[] {
  if (params.take_steering === undefined) return [];
  try {
    const taken = params.take_steering();
    if (!Array.isArray(taken)) return [];
    return taken.filter(
      (message): message is Message =>
        typeof message === 'object' && message !== null && typeof message.role === 'string',
    );
  } catch {
    return [];
  }
}

/** Appended to a partial answer kept in the history after an abort, for the model. */
export const INTERRUPTED_MARK = '\n\n[interrupted by the user]';

/**
 * One model call raced against the abort: its result, or on abort the answer text streamed so
 * far. Deltas after it ended are dropped.
 */
async function call_model(
  chat: ChatFn,
  request: readonly Message[],
  tools: readonly ToolDefinition[],
  turn: number,
  signal: AbortSignal | undefined,
  emit: (event: AgentEvent) => void,
  restartable: boolean,
): Promise<{ result: ChatResult } | { partial_text: string }> {
  let live = true;
  let partial_text = '';
  const options: ChatOptions = {
    signal,
    on_delta: (delta: ChatDelta) => {
      if (!live) return;
      if (delta.kind !== 'reasoning') partial_text += delta.text;
      emit({ type: 'llm_delta', turn, delta });
    },
    ...(restartable
      ? {
          restartable: true,
          on_restart: () => {
            partial_text = '';
          },
        }
      : {}),
  };
  try {
    const outcome = await race_abort(Promise.resolve(chat(request, tools, options)), signal);
    return outcome.aborted ? { partial_text } : { result: checked_result(outcome.value, turn) };
  } finally {
    live = false;
  }
}

function check_inputs(deps: LoopDeps, seed: readonly Message[], params: LoopParams): void {
  if (typeof deps?.chat !== 'function')
    throw new TypeError('run_conversation: deps.chat must be a ChatFn');
  if (typeof deps.tools?.execute !== 'function') {
    throw new TypeError('run_conversation: deps.tools must be a ToolRunner with execute()');
  }
  if (!Array.isArray(deps.definitions)) {
    throw new TypeError('run_conversation: deps.definitions must be an array of ToolDefinition');
  }
  if (!Array.isArray(seed))
    throw new TypeError('run_conversation: seed must be an array of messages');
  if (typeof params !== 'object' || params === null) {
    throw new TypeError('run_conversation: params must be an object with max_turns');
  }
  const { max_turns, context_window, compression } = params;
  if (!Number.isInteger(max_turns) || max_turns < 1) {
    throw new RangeError(
      `run_conversation: max_turns must be a positive integer, got ${String(max_turns)}`,
    );
  }
  if (context_window !== undefined && !(Number.isFinite(context_window) && context_window > 0)) {
    throw new RangeError(
      `run_conversation: context_window must be a positive number, got ${String(context_window)}`,
    );
  }
  const threshold = compression?.threshold;
  if (threshold !== undefined && !(threshold > 0 && threshold <= 1)) {
    throw new RangeError(
      `run_conversation: compression.threshold must be in (0, 1], got ${String(threshold)}`,
    );
  }
  const keep_recent = compression?.keep_recent;
  if (keep_recent !== undefined && !(Number.isInteger(keep_recent) && keep_recent >= 1)) {
    throw new RangeError(
      `run_conversation: compression.keep_recent must be a positive integer, got ${String(keep_recent)}`,
    );
  }
}
