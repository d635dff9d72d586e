import type {
  AgentEvent,
  AgentListener,
  CompressEndEvent,
  LlmEndEvent,
  Message,
  RunEndEvent,
  RunStartEvent,
  SteerEvent,
  ToolCallEndEvent,
  Usage,
} from '@lich/core';
import { add_usage, content_text, empty_usage, one_line } from '@lich/core';
import { error_text } from './errors.js';
import type { SessionHandle } from './handle.js';
import { RUN_INPUT_LIMIT, type SessionRecordInput } from './records.js';
import { common_prefix, same_message } from './same_message.js';

/** Anything events can be heard from, such as `AgentEmitter`. */
export interface EventSource {
  on(listener: AgentListener): () => void;
}

/** Options of a `SessionRecorder`. */
export interface RecorderOptions {
  /**
   * Hears every failure to record (a write that failed, a record that could not be made), with
   * the event being recorded. Must not throw. Default: a warning on stderr (the first few only).
   */
  on_error?: (error: unknown, event: AgentEvent) => void;
  /** Written as the `request_id` of the runs' `run_start` records (the prompt's client id). */
  request_id?: string;
  /**
   * Prices a model call: its dollars, or null when the model has no known price. With it, each
   * model call's record carries `cost_usd` and `run_end` the run's and the session's.
   */
  price?: (usage: Usage, provider: string | undefined, model: string | undefined) => number | null;
}

const DEFAULT_WARNINGS = 3;

function default_on_error(path: string): (error: unknown, event: AgentEvent) => void {
  let shown = 0;
  return (error, event) => {
    shown += 1;
    if (shown > DEFAULT_WARNINGS + 1) return;
    console.warn(
      shown > DEFAULT_WARNINGS
        ? `lich: session ${path}: further recording failures are not shown`
        : `lich: session ${path}: could not record '${event.type}': ${error_text(error)}`,
    );
  };
}

/**
 * Writes the loop's events to a session as records: `run_start` and the seeded messages the
 * session does not hold yet, one `message` per `llm_end` and `tool_call_end` and per steered
 * message (`steer`),
 * `budget_exhausted`, `compress_end`, and `run_end` with the run's usage (summed from its
 * `llm_end` events) and the session's totals.
 *
 * Contract:
 * - best-effort: `record` never throws and never waits; a failed write goes to `on_error` and the
 *   run goes on. Records are queued on the handle in event order.
 * - a later run in the same session (its seed = the held history + a new message) writes only
 *   the new messages; a seed that departs from the held history rewrites from where they differ.
 * - when the loop's final history differs from what was recorded (or a write failed), the
 *   difference is written before `run_end`, or the next run rewrites the seed in full.
 */
export class SessionRecorder {
  readonly handle: SessionHandle;
  readonly #on_error: (error: unknown, event: AgentEvent) => void;
  readonly #request_id: string | undefined;
  readonly #pending = new Set<Promise<void>>();
  #detach: (() => void) | undefined;
  #run: number | undefined;
  /** The loop's history of the current run, as the events describe it. */
  #history: (Message | undefined)[] = [];
  #usage: Usage = empty_usage();
  #cost: number | null = 0;
  readonly #price: RecorderOptions['price'];
  /** The handle's failure count when the last run started. */
  #failures_seen = 0;

  constructor(handle: SessionHandle, options: RecorderOptions = {}) {
    this.handle = handle;
    this.#on_error = options.on_error ?? default_on_error(handle.path);
    this.#request_id = options.request_id;
    this.#price = options.price;
    this.#failures_seen = handle.failed_writes;
  }

  /** Where the session is written. */
  get session_path(): string {
    return this.handle.path;
  }

  /** Starts hearing `source`'s events; returns a function that stops. Replaces any earlier one. */
  attach(source: EventSource): () => void {
    this.detach();
    const off = source.on((event) => this.record(event));
    this.#detach = off;
    return () => {
      if (this.#detach === off) this.detach();
    };
  }

  /** Stops hearing events. Writes already queued still complete. */
  detach(): void {
    this.#detach?.();
    this.#detach = undefined;
  }

  /** Settles once every record queued so far has been written or has failed. Never rejects. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** Records one event. Never throws. */
  record(event: AgentEvent): void {
    try {
      switch (event.type) {
        case 'run_start':
          this.#run_start(event);
          break;
        case 'llm_end':
          this.#llm_end(event);
          break;
        case 'tool_call_end':
          this.#tool_call_end(event);
          break;
        case 'compress_end':
          this.#compress_end(event);
          break;
        case 'steer':
          this.#steer(event);
          break;
        case 'budget_exhausted':
          this.#write(event, {
            type: 'budget_exhausted',
            run: this.#current_run(),
            turns_used: event.turns_used,
            max_turns: event.max_turns,
            grace: event.grace,
          });
          break;
        case 'run_end':
          this.#run_end(event);
          break;
        default:
          break;
      }
    } catch (error) {
      this.#report(error, event);
    }
  }

  #report(error: unknown, event: AgentEvent): void {
    try {
      this.#on_error(error, event);
    } catch {
      // the error hook itself failed; nothing is left to report to
    }
  }

  #write(event: AgentEvent, record: SessionRecordInput): void {
    const task = this.handle.append(record).catch((error: unknown) => this.#report(error, event));
    this.#pending.add(task);
    void task.finally(() => this.#pending.delete(task));
  }

  #current_run(): number {
    if (this.#run === undefined) {
      // an event without run_start (the recorder was attached mid-run): go on in the last run
      this.#run = Math.max(this.handle.state.runs, 1);
      this.#history = [...this.handle.state.slots];
    }
    return this.#run;
  }

  #run_start(event: RunStartEvent): void {
    const run = this.handle.state.runs + 1;
    const failed = this.handle.failed_writes !== this.#failures_seen;
    this.#failures_seen = this.handle.failed_writes;
    // after a failed write the file may lack records the handle's view holds: reseed in full
    const kept = failed ? 0 : common_prefix(this.handle.state.slots, event.messages);
    const fresh = event.messages.slice(kept);
    // the whole seed's last user message: a retry of a run that never ended may find its input
    // in the kept part already
    const last_user = [...event.messages].reverse().find((message) => message.role === 'user');
    this.#run = run;
    this.#history = [...event.messages];
    this.#usage = empty_usage();
    this.#cost = 0;
    this.#write(event, {
      type: 'run_start',
      run,
      max_turns: event.max_turns,
      seeded_count: event.messages.length,
      kept,
      input:
        last_user === undefined ? '' : one_line(content_text(last_user.content), RUN_INPUT_LIMIT),
      ...(this.#request_id === undefined ? {} : { request_id: this.#request_id }),
    });
    fresh.forEach((message, offset) => {
      this.#write(event, { type: 'message', run, index: kept + offset, source: 'seed', message });
    });
  }

  #llm_end(event: LlmEndEvent): void {
    const run = this.#current_run();
    const index = this.#history.length;
    this.#history.push(event.message);
    this.#usage = add_usage(this.#usage, event.usage);
    const cost =
      this.#price === undefined
        ? undefined
        : this.#price(event.usage ?? empty_usage(), event.provider, event.model);
    if (cost !== undefined)
      this.#cost = this.#cost === null || cost === null ? null : this.#cost + cost;
    this.#write(event, {
      type: 'message',
      run,
      index,
      source: 'llm',
      message: event.message,
      turn: event.turn,
      finish_reason: event.finish_reason,
      duration_ms: event.duration_ms,
      ...(event.usage === undefined ? {} : { usage: event.usage }),
      ...(cost === undefined ? {} : { cost_usd: cost }),
      ...(event.provider === undefined ? {} : { provider: event.provider }),
      ...(event.model === undefined ? {} : { model: event.model }),
    });
  }

  /** Where the result of `call_id` sits: right after its assistant message, in call order. */
  #tool_index(call_id: string): number {
    for (let position = this.#history.length - 1; position >= 0; position--) {
      const message = this.#history[position];
      if (message?.role !== 'assistant' || message.tool_calls === undefined) continue;
      const order = message.tool_calls.findIndex((call) => call.id === call_id);
      if (order !== -1) return position + 1 + order;
    }
    return this.#history.length;
  }

  #tool_call_end(event: ToolCallEndEvent): void {
    const run = this.#current_run();
    const index = this.#tool_index(event.call.id);
    while (this.#history.length < index) this.#history.push(undefined);
    this.#history[index] = event.message;
    this.#write(event, {
      type: 'message',
      run,
      index,
      source: 'tool',
      message: event.message,
      turn: event.turn,
      tool_ok: event.result.ok,
      duration_ms: event.result.duration_ms,
    });
  }

  #steer(event: SteerEvent): void {
    const run = this.#current_run();
    for (const message of event.messages) {
      const index = this.#history.length;
      this.#history.push(message);
      this.#write(event, {
        type: 'message',
        run,
        index,
        source: 'steer',
        message,
        turn: event.turn,
      });
    }
  }

  #compress_end(event: CompressEndEvent): void {
    const run = this.#current_run();
    const { from, to, summary_message } = event;
    if (event.ok && from !== undefined && to !== undefined && summary_message !== undefined) {
      this.#history.splice(from, to - from, summary_message);
      this.#write(event, {
        type: 'compress_end',
        run,
        ok: true,
        before_count: event.before_count,
        after_count: event.after_count,
        from,
        to,
        replaced: to - from,
        summary: event.summary ?? content_text(summary_message.content),
        summary_message,
        ...(event.usage === undefined ? {} : { usage: event.usage }),
      });
      return;
    }
    this.#write(event, {
      type: 'compress_end',
      run,
      ok: false,
      before_count: event.before_count,
      after_count: event.after_count,
      ...(event.error === undefined ? {} : { error: event.error }),
      ...(event.usage === undefined ? {} : { usage: event.usage }),
    });
  }

  #run_end(event: RunEndEvent): void {
    const run = this.#current_run();
    const held = this.handle.state.slots;
    const agreed = common_prefix(held, event.messages);
    for (let index = agreed; index < event.messages.length; index++) {
      const message = event.messages[index] as Message;
      if (same_message(held[index], message)) continue;
      this.#write(event, { type: 'message', run, index, source: 'sync', message });
    }
    this.#write(event, {
      type: 'run_end',
      run,
      stopped_reason: event.stopped_reason,
      turns_used: event.turns_used,
      messages_count: event.messages.length,
      usage: this.#usage,
      usage_total: this.handle.state.usage_total,
      ...(this.#price === undefined
        ? {}
        : { cost_usd: this.#cost, cost_total_usd: this.handle.state.cost_total_usd }),
      ...(event.error === undefined ? {} : { error: event.error }),
    });
    this.#run = undefined;
    this.#history = [];
  }
}

/**
 * Creates a `SessionRecorder` for `handle` and attaches it to `source` (an `AgentEmitter`).
 * Call `recorder.detach()` to stop. Never throws.
 */
export function attach_recorder(
  source: EventSource,
  handle: SessionHandle,
  options: RecorderOptions = {},
): SessionRecorder {
  const recorder = new SessionRecorder(handle, options);
  recorder.attach(source);
  return recorder;
}
