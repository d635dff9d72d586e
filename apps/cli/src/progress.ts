import type { AgentEvent } from '@lich/core';
import { argument_hint, OutputView } from './progress_output.js';

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

/**
 * Shows a run of `Agent.run` as it happens, from the agent's events, through a `ProgressOutput`
 * (the answer on stdout, a spinner, tool lines and the reasoning on stderr), and collects the
 * tool calls and the answer for the `--json` document. `listener` never throws.
 */
export class ProgressView extends OutputView {
  readonly #tool_args = new Map<string, unknown>();
  readonly tool_calls: ToolCallSummary[] = [];
  /** The final answer's text, once known. */
  answer: string | null = null;

  /** Hears the agent's events. */
  readonly listener = (event: AgentEvent): void => {
    try {
      this.#handle(event);
    } catch {
      // showing progress must never break the run
    }
  };

  #handle(event: AgentEvent): void {
    const { output } = this;
    const { price } = output.options;
    switch (event.type) {
      case 'llm_start':
        output.call_started(event.grace ? 'wrapping up…' : 'thinking…');
        return;
      case 'llm_delta':
        if (event.delta.kind === 'reasoning') output.reasoning_delta(event.delta.text);
        else output.text_delta(event.delta.text);
        return;
      case 'llm_end': {
        const { message } = event;
        output.call_ended(message.reasoning);
        output.call_report({
          turn: event.turn,
          provider: event.provider,
          model: event.model,
          duration_ms: event.duration_ms,
          usage: event.usage,
          cost:
            price === undefined
              ? undefined
              : (price(
                  event.usage ?? { input_tokens: 0, output_tokens: 0 },
                  event.provider,
                  event.model,
                ) ?? null),
        });
        const final = !message.tool_calls || message.tool_calls.length === 0;
        if (final) this.answer = message.content;
        output.message(message.content, final);
        return;
      }
      case 'tool_call_start':
        this.#tool_args.set(event.call.id, event.args);
        // the label is made only where a spinner shows it
        if (output.spins) {
          output.start_spinner(`${event.call.name} ${argument_hint(event.args)}`.trimEnd());
        }
        return;
      case 'tool_call_end': {
        const args = this.#tool_args.get(event.call.id) ?? null;
        const { result } = event;
        const summary: ToolCallSummary = {
          name: event.call.name,
          arguments: args,
          ok: result.ok,
          duration_ms: Math.round(result.duration_ms),
        };
        if (!result.ok) summary.error = result.error ?? result.output;
        if (result.sandbox !== undefined) summary.sandbox = result.sandbox;
        this.tool_calls.push(summary);
        output.tool_line({
          name: event.call.name,
          args,
          unparsed:
            this.#tool_args.has(event.call.id) && this.#tool_args.get(event.call.id) === undefined,
          ok: result.ok,
          error: summary.error,
          duration_ms: result.duration_ms,
          sandbox: result.sandbox,
        });
        return;
      }
      case 'compress_start':
        output.start_spinner('compressing the history…');
        return;
      case 'compress_end':
        output.compaction(event);
        return;
      case 'budget':
        output.budget_note(event.level, event.message);
        return;
      case 'budget_exhausted':
        output.turns_note(
          `${event.max_turns === 1 ? 'used the 1 turn allowed' : `used all ${event.max_turns} turns`}${event.grace ? '; asking for a final answer' : ''}`,
        );
        return;
      case 'run_end':
        this.stop();
        return;
      default:
        return;
    }
  }
}
