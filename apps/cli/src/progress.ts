import type { HostEvent } from '@lich/agent';
import { argument_hint, type ProgressOptions, ProgressOutput } from './progress_output.js';

/**
 * Shows the turns of a `SessionHost` session as they happen, from its events (`lich "task"` and
 * `lich chat`): the answer on stdout (streamed on a terminal, whole through a pipe), and on stderr
 * a spinner while the model thinks, a line per tool call, the reasoning when asked, compactions,
 * and with `-v` a line per model call. Pending output is written when a turn ends or a permission
 * is asked. `listener` never throws.
 */
export class ProgressView {
  readonly #output: ProgressOutput;
  readonly #tool_args = new Map<string, unknown>();
  /** The model calls of the turn so far (the `-v` line numbers them). */
  #calls = 0;
  /** Tool calls of the last message still running: the model is asked again once none is. */
  #tools_running = 0;
  /** How the session's commands run (`bwrap`, `sandbox-exec`), from its `session.info`. */
  #sandbox: string | undefined;
  /** The answer of the last turn, once known. */
  answer: string | null = null;

  constructor(options: ProgressOptions) {
    this.#output = new ProgressOutput(options);
  }

  /** Stops the spinner and writes what is pending. Idempotent. */
  stop(): void {
    this.#output.stop();
  }

  /**
   * Ends the line an answer left open on a terminal (cut by Ctrl+C), so a notice after it starts
   * on a line of its own. Idempotent.
   */
  finish_line(): void {
    this.#output.finish_line();
  }

  /** Hears the session's events. */
  readonly listener = (event: HostEvent): void => {
    try {
      this.#handle(event);
    } catch {
      // showing progress must never break the chat
    }
  };

  #handle(event: HostEvent): void {
    const output = this.#output;
    switch (event.type) {
      case 'session.info':
        if (event.payload.sandbox !== undefined) this.#sandbox = event.payload.sandbox;
        return;
      case 'turn.started':
        this.#calls = 0;
        this.#tools_running = 0;
        this.answer = null;
        output.call_started('thinking…');
        return;
      case 'message.delta':
        output.text_delta(event.payload.text);
        return;
      case 'reasoning.delta':
        output.reasoning_delta(event.payload.text);
        return;
      case 'message.completed': {
        const { message } = event.payload;
        this.#calls += 1;
        output.call_ended(message.reasoning);
        const calls = message.tool_calls?.length ?? 0;
        if (calls === 0) this.answer = message.content;
        this.#tools_running = calls;
        output.message(message.content, calls === 0);
        return;
      }
      case 'usage.update': {
        const { payload } = event;
        // a subagent's usage comes without a call of this session's
        if (payload.duration_ms === undefined) return;
        output.call_report({
          turn: this.#calls,
          provider: payload.provider,
          model: payload.model,
          duration_ms: payload.duration_ms,
          usage: payload.usage,
          cost: payload.cost_usd,
        });
        return;
      }
      case 'tool.start':
        this.#tool_args.set(event.payload.tool_call_id, event.payload.args);
        if (output.spins) {
          const label = `${event.payload.name} ${argument_hint(event.payload.args)}`;
          output.start_spinner(label.trimEnd());
        }
        return;
      case 'tool.end': {
        const { payload } = event;
        const args = this.#tool_args.get(payload.tool_call_id) ?? null;
        this.#tool_args.delete(payload.tool_call_id);
        output.tool_line({
          name: payload.name,
          args,
          // the host hands on the raw text of arguments that did not parse
          unparsed: typeof args === 'string',
          ok: payload.ok,
          error: payload.ok ? undefined : (payload.error ?? payload.output),
          duration_ms: payload.duration_ms,
          sandbox:
            payload.sandboxed === undefined
              ? undefined
              : payload.sandboxed
                ? (this.#sandbox ?? 'on')
                : 'none',
        });
        this.#tools_running -= 1;
        if (this.#tools_running <= 0) output.call_started('thinking…');
        return;
      }
      case 'budget.notice': {
        const { payload } = event;
        if (payload.kind === 'spending') {
          output.budget_note(payload.level, payload.message);
          return;
        }
        output.turns_note(payload.message);
        // one more call, without tools, for a final answer
        if (payload.grace === true) output.call_started('wrapping up…');
        return;
      }
      case 'compaction':
        // `/compact` says what it did itself; this is a turn's own compaction
        if (event.payload.turn_id !== '') output.compaction(event.payload);
        return;
      case 'permission.request':
      case 'turn.completed':
        output.stop();
        return;
      default:
        return;
    }
  }
}
