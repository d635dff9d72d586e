import type { AgentEvent, Usage } from '@lich/core';
import { add_usage, empty_usage } from '@lich/core';

/** One tool call as the `--json` document reports it. */
export interface ToolCallSummary {
  name: string;
  arguments: unknown;
  ok: boolean;
  duration_ms: number;
  error?: string;
  /** For a tool that ran a command: the sandbox it ran under (`bwrap`, `sandbox-exec`) or `none`. */
  sandbox?: string;
}

/** Prices one model call in dollars; null when its model has no known price. */
export type Pricer = (
  usage: Usage,
  provider: string | undefined,
  model: string | undefined,
) => number | null;

/** The one shape of the `--json` result document, on success, failure and abort alike. */
export interface RunDocument {
  answer: string | null;
  /**
   * Why the run ended, in the vocabulary of every surface (`StopReason`): `final`, `max_turns`,
   * `budget`, `refusal`, `aborted` or `error`.
   */
  stopped_reason: string;
  /** Why the run failed, or null. */
  error: string | null;
  turns_used: number;
  /** The tokens of the run's model calls, its subagents' included. */
  usage: Usage;
  /**
   * What the run's model calls cost in dollars, its subagents' included; null when one had no
   * known price.
   */
  cost_usd: number | null;
  /** Why a spending limit stopped the run, or null. */
  budget_stop: string | null;
  provider: string | null;
  model: string | null;
  session_path: string | null;
  tool_calls: ToolCallSummary[];
}

/**
 * Follows a run's events to report it whichever way it ends: the turns used, the usage summed
 * over the model calls that answered (its subagents' included, through `subagent_ended`), the
 * provider and model of the last one (or the first configured, before any answered), and each
 * tool call. `listener` never throws.
 */
export class RunReport {
  turns_used = 0;
  usage: Usage = empty_usage();
  cost_usd: number | null = 0;
  budget_stop: string | null = null;
  provider: string | null;
  model: string | null;
  readonly tool_calls: ToolCallSummary[] = [];
  readonly #tool_args = new Map<string, unknown>();
  readonly #price: Pricer | undefined;

  constructor(first: { kind: string; model: string } | undefined, price?: Pricer) {
    this.provider = first?.kind ?? null;
    this.model = first?.model ?? null;
    this.#price = price;
  }

  readonly listener = (event: AgentEvent): void => {
    if (event.type === 'llm_start' && !event.grace)
      this.turns_used = Math.max(this.turns_used, event.turn);
    if (event.type === 'llm_end') {
      this.usage = add_usage(this.usage, event.usage);
      this.#add_cost(
        this.#price?.(event.usage ?? empty_usage(), event.provider, event.model) ?? null,
      );
      if (event.provider) this.provider = event.provider;
      if (event.model) this.model = event.model;
    }
    if (event.type === 'run_end') this.turns_used = event.turns_used;
    if (event.type === 'budget' && event.level === 'stop') this.budget_stop = event.message;
    if (event.type === 'tool_call_start') this.#tool_args.set(event.call.id, event.args);
    if (event.type === 'tool_call_end') {
      const { result } = event;
      const summary: ToolCallSummary = {
        name: event.call.name,
        arguments: this.#tool_args.get(event.call.id) ?? null,
        ok: result.ok,
        duration_ms: Math.round(result.duration_ms),
      };
      this.#tool_args.delete(event.call.id);
      if (!result.ok) summary.error = result.error ?? result.output;
      if (result.sandbox !== undefined) summary.sandbox = result.sandbox;
      this.tool_calls.push(summary);
    }
  };

  /** Adds what a subagent of the run used and cost (its `subagent.completed` event). */
  subagent_ended(usage: Usage, cost_usd: number | null): void {
    this.usage = add_usage(this.usage, usage);
    this.#add_cost(cost_usd);
  }

  /** Adds dollars to the run's; one unknown price makes the whole unknown. */
  #add_cost(cost: number | null): void {
    this.cost_usd = this.cost_usd === null || cost === null ? null : this.cost_usd + cost;
  }

  /** What `--json` prints at the end of a run (stream-json's last line), from the events heard. */
  document(fields: {
    answer: string | null;
    stopped_reason: string;
    error?: string | null;
    session_path: string | null;
  }): RunDocument {
    return {
      answer: fields.answer,
      stopped_reason: fields.stopped_reason,
      error: fields.error ?? null,
      turns_used: this.turns_used,
      usage: this.usage,
      cost_usd: this.cost_usd,
      budget_stop: this.budget_stop,
      provider: this.provider,
      model: this.model,
      session_path: fields.session_path,
      tool_calls: [...this.tool_calls],
    };
  }
}
