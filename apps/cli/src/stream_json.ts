import type { AgentRunOptions } from '@lich/agent';
import type { AgentEvent, Usage } from '@lich/core';
import { add_usage, empty_usage } from '@lich/core';
import type { Pricer, RunDocument } from './run_report.js';

/** The version of the `--output-format stream-json` events, in every `run_start`. */
export const STREAM_JSON_VERSION = 1;

/** A retry or failover of the provider router, as the agent reports it. */
type RouterEvent = Parameters<NonNullable<AgentRunOptions['on_provider_event']>>[0];

/** How `lich` prints a run's result: the answer, one JSON document, or one JSON event per line. */
export type OutputFormat = 'text' | 'json' | 'stream-json';

/** The output formats, as `--output-format` takes them. */
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['text', 'json', 'stream-json'];

/** Where the run started: what `run_start` says beside the loop's own facts. */
export interface StreamStart {
  session_id: string | null;
  session_path: string | null;
  provider: string | null;
  model: string | null;
}

/**
 * Writes a run as `stream-json`: one JSON object per line on `out`, each with a `type`, as the
 * run happens (the schema is in the CLI's README, "Output formats"). `listener` and
 * `provider_listener` never throw; `end` writes the last line, `run_end`, with the fields of the
 * `--json` document.
 */
export class StreamJsonWriter {
  readonly #out: NodeJS.WritableStream;
  readonly #start: StreamStart;
  #usage: Usage = empty_usage();
  #cost: number | null = 0;
  #started = false;
  readonly #price: Pricer | undefined;

  constructor(out: NodeJS.WritableStream, start: StreamStart, price?: Pricer) {
    this.#out = out;
    this.#start = start;
    this.#price = price;
  }

  #write(line: Record<string, unknown>): void {
    try {
      this.#out.write(`${JSON.stringify(line)}\n`);
    } catch {
      // a closed stdout must not break the run
    }
  }

  /** Writes `run_start` once (also when the run failed before the loop began). */
  #run_start(max_turns: number | null): void {
    if (this.#started) return;
    this.#started = true;
    this.#write({ type: 'run_start', version: STREAM_JSON_VERSION, ...this.#start, max_turns });
  }

  /** Hears the agent's events. */
  readonly listener = (event: AgentEvent): void => {
    switch (event.type) {
      case 'run_start':
        this.#run_start(event.max_turns);
        return;
      case 'llm_start':
        this.#write({ type: 'turn_start', turn: event.turn, grace: event.grace });
        return;
      case 'llm_delta':
        this.#write({
          type: event.delta.kind === 'reasoning' ? 'reasoning_delta' : 'text_delta',
          turn: event.turn,
          text: event.delta.text,
        });
        return;
      case 'llm_end': {
        this.#write({
          type: 'turn_end',
          turn: event.turn,
          text: event.message.content,
          tool_calls: (event.message.tool_calls ?? []).map((call) => ({
            id: call.id,
            name: call.name,
            arguments: call.arguments,
          })),
          finish_reason: event.finish_reason,
          provider: event.provider ?? null,
          model: event.model ?? null,
          duration_ms: Math.round(event.duration_ms),
        });
        this.#usage = add_usage(this.#usage, event.usage);
        const cost =
          this.#price?.(event.usage ?? empty_usage(), event.provider, event.model) ?? null;
        this.#cost = this.#cost === null || cost === null ? null : this.#cost + cost;
        this.#write({
          type: 'usage',
          turn: event.turn,
          usage: event.usage ?? null,
          total: this.#usage,
          cost_usd: cost,
          total_cost_usd: this.#cost,
        });
        return;
      }
      case 'budget':
        this.#write({
          type: 'budget',
          level: event.level,
          scope: event.scope,
          used: event.used,
          message: event.message,
        });
        return;
      case 'tool_call_start':
        this.#write({
          type: 'tool_start',
          turn: event.turn,
          id: event.call.id,
          name: event.call.name,
          arguments: event.args ?? null,
        });
        return;
      case 'tool_call_end':
        this.#write({
          type: 'tool_end',
          turn: event.turn,
          id: event.call.id,
          name: event.call.name,
          ok: event.result.ok,
          output: event.result.output,
          error: event.result.ok ? null : (event.result.error ?? event.result.output),
          duration_ms: Math.round(event.result.duration_ms),
          ...(event.result.sandbox === undefined ? {} : { sandbox: event.result.sandbox }),
        });
        return;
      case 'compress_end':
        this.#write({
          type: 'compress',
          ok: event.ok,
          before_count: event.before_count,
          after_count: event.after_count,
          ...(event.error === undefined ? {} : { error: event.error }),
        });
        return;
      case 'budget_exhausted':
        this.#write({
          type: 'budget_exhausted',
          turns_used: event.turns_used,
          max_turns: event.max_turns,
          grace: event.grace,
        });
        return;
      default:
        return;
    }
  };

  /** Hears the provider router: `retry` and `failover` lines. */
  readonly provider_listener = (event: RouterEvent): void => {
    if (event.type === 'provider_retry') {
      this.#write({
        type: 'retry',
        provider: event.provider,
        model: event.model,
        attempt: event.attempt,
        max_retries: event.max_retries,
        delay_ms: event.delay_ms,
        reason: event.reason,
      });
      return;
    }
    this.#write({
      type: 'failover',
      from_provider: event.from_provider,
      from_model: event.from_model,
      to_provider: event.to_provider,
      to_model: event.to_model,
      reason: event.reason,
    });
  };

  /** Writes `run_end`: the `--json` document's fields, `tool_calls` left out (they streamed). */
  end(document: RunDocument): void {
    this.#run_start(null);
    const { tool_calls: _streamed, ...rest } = document;
    this.#write({ type: 'run_end', ...rest });
  }
}
