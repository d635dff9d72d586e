import type {
  AssistantMessage,
  ChatDelta,
  FinishReason,
  Message,
  ToolCall,
  ToolMessage,
  ToolResult,
  Usage,
} from './types.js';

/**
 * Why a run stopped, as the loop ends it: a final answer (`final`), the turn budget used up
 * (`max_turns`), a spending limit (`budget`: a `BudgetStop`), or the caller's abort (`aborted`).
 */
export type StoppedReason = 'final' | 'max_turns' | 'budget' | 'aborted';

/**
 * Why a run or a turn ended: the one vocabulary every Lich surface reports (the CLI's JSON, the
 * session files, `lich serve`, the gateways, the TUI). The loop's `StoppedReason`, and `refusal`
 * (the provider refused: finish reason `content_filter`) and `error` (the model call failed).
 * Only `@lich/acp` maps it to other words (ACP's).
 */
export type StopReason = StoppedReason | 'refusal' | 'error';

/** The run began. `messages` is the seeded history the loop starts from (system prompt applied). */
export interface RunStartEvent {
  type: 'run_start';
  messages: readonly Message[];
  max_turns: number;
}

/** A model call is about to be made. `grace` marks the one call made after the budget ran out. */
export interface LlmStartEvent {
  type: 'llm_start';
  turn: number;
  grace: boolean;
  /**
   * The estimated tokens of the history this call starts from, tool definitions included (core's
   * `TokenCounter`; the figure compression is decided on, so it drops after a compaction).
   */
  context_tokens: number;
}

/** A streamed piece of the model's text or reasoning. */
export interface LlmDeltaEvent {
  type: 'llm_delta';
  turn: number;
  delta: ChatDelta;
}

/** A model call finished; `message` was appended to the history. */
export interface LlmEndEvent {
  type: 'llm_end';
  turn: number;
  message: AssistantMessage;
  finish_reason: FinishReason;
  usage?: Usage;
  provider?: string;
  model?: string;
  duration_ms: number;
}

/**
 * The model asked for a tool call, and it is about to go to the runner (which may still ask a
 * person, or refuse it). `args` is the parsed arguments, when they parsed.
 */
export interface ToolCallStartEvent {
  type: 'tool_call_start';
  turn: number;
  call: ToolCall;
  args: unknown;
}

/**
 * The runner let the call through its checks (an approval included) and the tool now runs.
 * Emitted at most once per call, and only by runners that report it (`ToolContext.on_running`).
 */
export interface ToolCallRunningEvent {
  type: 'tool_call_running';
  turn: number;
  call: ToolCall;
}

/** A tool call finished; `message` was appended to the history. */
export interface ToolCallEndEvent {
  type: 'tool_call_end';
  turn: number;
  call: ToolCall;
  result: ToolResult;
  message: ToolMessage;
}

/**
 * Messages from `LoopParams.take_steering` were appended after turn `turn`'s tool results, before
 * the next model call.
 */
export interface SteerEvent {
  type: 'steer';
  turn: number;
  messages: readonly Message[];
}

/** The history is over the compression threshold and is about to be compressed. */
export interface CompressStartEvent {
  type: 'compress_start';
  messages_count: number;
  estimated_tokens: number;
}

/**
 * Compression finished. On success the messages at `[from, to)` of the history were replaced by
 * `summary_message`; on failure (`ok: false`) the history is unchanged and `error` says why.
 */
export interface CompressEndEvent {
  type: 'compress_end';
  ok: boolean;
  before_count: number;
  after_count: number;
  from?: number;
  to?: number;
  summary?: string;
  summary_message?: Message;
  error?: string;
  /** Token usage of the summary call, when it was made and the provider reported it. */
  usage?: Usage;
}

/** The turn budget ran out while the model was still calling tools. */
export interface BudgetExhaustedEvent {
  type: 'budget_exhausted';
  turns_used: number;
  max_turns: number;
  /** Whether the wrap-up call without tools is being made. */
  grace: boolean;
}

/**
 * The run ended. `stopped_reason` is `'error'` when the loop is about to throw (a model error);
 * `error` then holds its message. `messages` is the history at the end, valid for a next run.
 */
export interface RunEndEvent {
  type: 'run_end';
  stopped_reason: StoppedReason | 'error';
  turns_used: number;
  final: string | null;
  messages: readonly Message[];
  error?: string;
}

/** Everything the loop reports while it runs, discriminated by `type`. */
/**
 * A spending limit said something: `warning` when a limit is mostly used (the caller says how
 * much), `stop` when the next model call was refused because it would cross it. The loop emits
 * none; a ChatFn wrapper that keeps a budget does, and throws a `BudgetStop` to refuse a call.
 */
export interface BudgetEvent {
  type: 'budget';
  level: 'warning' | 'stop';
  /** One line for people, e.g. "80% of the session budget ($0.80 of $1.00) is spent". */
  message: string;
  /** Which limit: `session`, `day`, `sender`, `conversation`, `run`… */
  scope: string;
  /** The share of the limit spent and reserved, 0..1 (or more once crossed). */
  used: number;
}

export type AgentEvent =
  | RunStartEvent
  | BudgetEvent
  | LlmStartEvent
  | LlmDeltaEvent
  | LlmEndEvent
  | ToolCallStartEvent
  | ToolCallRunningEvent
  | ToolCallEndEvent
  | SteerEvent
  | CompressStartEvent
  | CompressEndEvent
  | BudgetExhaustedEvent
  | RunEndEvent;

export type AgentEventType = AgentEvent['type'];

/** A function that hears events. */
export type AgentListener = (event: AgentEvent) => void;

/**
 * Delivers loop events to listeners, synchronously and in order.
 *
 * Contract: `emit` never throws. A listener that throws is isolated: the error goes to
 * `on_listener_error` (a warning on stderr by default) and the other listeners still hear the event.
 */
export class AgentEmitter {
  readonly #listeners = new Set<AgentListener>();
  readonly #on_listener_error: (error: unknown, event: AgentEvent) => void;

  constructor(options: { on_listener_error?: (error: unknown, event: AgentEvent) => void } = {}) {
    this.#on_listener_error =
      options.on_listener_error ??
      ((error, event) => {
        const text = error instanceof Error ? error.message : String(error);
        console.warn(`lich: a listener of '${event.type}' threw: ${text}`);
      });
  }

  /** Adds a listener; returns a function that removes it. */
  on(listener: AgentListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Delivers `event` to every listener. Never throws. */
  emit(event: AgentEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        try {
          this.#on_listener_error(error, event);
        } catch {
          // the error hook itself failed; nothing sensible is left to report to
        }
      }
    }
  }

  /** How many listeners are attached. */
  get listener_count(): number {
    return this.#listeners.size;
  }
}
