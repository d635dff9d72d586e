/**
 * How a run's progress is written (`ProgressOutput`): the answer on stdout, and on stderr the
 * spinner, the tool lines, the reasoning and the notes. `ProgressView` drives it from a session's
 * events.
 */
import type { Usage } from '@lich/core';
import type { Pricer } from './run_report.js';
import { set_status_clearer } from './status_line.js';
import type { Style } from './style.js';

/** Where and how the progress of a run is shown. */
export interface ProgressOptions {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  out: Style;
  err: Style;
  /** Print the model's reasoning on stderr. */
  show_reasoning: boolean;
  /** Write the answer to stdout (off for `--json`). */
  write_answer: boolean;
  /** `-q`: no spinner, no tool lines, no compression or turn notes (the reasoning if asked). */
  quiet?: boolean;
  /** `-v`: a line per model call with its provider, model, time and tokens. */
  verbose?: boolean;
  /** Prices each model call for `verbose` (dollars next to tokens). */
  price?: Pricer;
}

/** One model call, as `-v` reports it. */
export interface CallReport {
  turn: number;
  provider?: string | undefined;
  model?: string | undefined;
  duration_ms: number;
  usage?: Usage | undefined;
  /** The call's cost, when it was priced (null: no known price); undefined: not priced at all. */
  cost?: number | null | undefined;
}

/** One finished tool call, as its line shows it. */
export interface ToolLine {
  name: string;
  /** The parsed arguments; `unparsed` when they were not JSON. */
  args: unknown;
  unparsed: boolean;
  ok: boolean;
  /** The failure (every line of it is shown, up to a screenful). */
  error?: string | undefined;
  duration_ms: number;
  /** How a command ran: `bwrap`, `sandbox-exec`, `none` (not sandboxed); absent for other tools. */
  sandbox?: string | undefined;
}

/**
 * How long progress written to stderr may wait to be written together with what follows: a write
 * to a terminal or a pipe is a system call that wakes the reader, and a fast run makes several
 * per turn. Less than a person notices.
 */
const FLUSH_MS = 50;

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Leads the reasoning on stderr when colour is off (dimmed text tells it apart otherwise). */
export const REASONING_LABEL = '[reasoning] ';

/** `3 ms`, `1.2 s`. */
export function format_duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A short view of a call's arguments: the first string value, on one line. */
export function argument_hint(args: unknown): string {
  if (typeof args !== 'object' || args === null) return '';
  for (const value of Object.values(args)) {
    if (typeof value === 'string' && value !== '') {
      const line = value.replace(/\s+/g, ' ');
      return line.length > 60 ? `${line.slice(0, 59)}…` : line;
    }
  }
  return '';
}

/** `1200 tokens in (1000 cached, 150 written to the cache), 40 out`. */
export function usage_text(usage: Usage): string {
  const cache: string[] = [];
  if (usage.cache_read_tokens) cache.push(`${usage.cache_read_tokens} cached`);
  if (usage.cache_write_tokens) cache.push(`${usage.cache_write_tokens} written to the cache`);
  const detail = cache.length > 0 ? ` (${cache.join(', ')})` : '';
  return `${usage.input_tokens} tokens in${detail}, ${usage.output_tokens} out`;
}

/** Dollars as people read them: `$0.0123`, `$1.25`, or `unknown` (a model without a price). */
export function format_dollars(cost: number | null): string {
  if (cost === null || !Number.isFinite(cost)) return 'cost unknown';
  if (cost === 0) return '$0';
  if (cost < 0.01) return `$${cost.toFixed(4)}`;
  if (cost < 100) return `$${cost.toFixed(2)}`;
  return `$${Math.round(cost)}`;
}

/**
 * Writes a run's progress. stdout gets the answer and nothing else: on a terminal it streams
 * live; through a pipe each message's text is written when it is complete, so text the model
 * writes before calling tools goes to stderr and stdout holds exactly the answer. stderr gets a
 * spinner while the model thinks (terminals only, not with `quiet`), one line per tool call with
 * its outcome and time, and the reasoning when asked. What goes to stderr is written at most
 * `FLUSH_MS` later, and always before anything goes to stdout and when the output stops.
 */
export class ProgressOutput {
  readonly options: ProgressOptions;
  /** Whether the answer streams (stdout is a terminal). */
  readonly live: boolean;
  /** Whether a spinner shows while waiting: on a terminal, unless quiet. */
  readonly spins: boolean;
  #pending = '';
  #flush_timer: NodeJS.Timeout | undefined;
  /** Whether what went to stdout last left a line open (an answer cut mid-stream). */
  #stdout_mid_line = false;
  #spinner: NodeJS.Timeout | undefined;
  #spinner_label = '';
  #frame = 0;
  #streamed_text = false;
  #streamed_reasoning = false;
  #reasoning_open = false;

  constructor(options: ProgressOptions) {
    this.options = options;
    this.live = options.stdout.isTTY === true;
    this.spins = options.stderr.isTTY === true && options.quiet !== true;
    // a warning or note written meanwhile comes after the progress so far, on a clean line
    set_status_clearer(() => {
      this.clear_spinner();
      this.#flush();
    });
  }

  /** Writes `text` to stderr (batched). */
  err(text: string): void {
    this.#pending += text;
    if (this.#flush_timer !== undefined) return;
    this.#flush_timer = setTimeout(() => this.#flush(), FLUSH_MS);
    this.#flush_timer.unref();
  }

  #out(text: string): void {
    this.#flush();
    this.options.stdout.write(text);
    if (text !== '') this.#stdout_mid_line = !text.endsWith('\n');
  }

  #flush(): void {
    if (this.#flush_timer !== undefined) clearTimeout(this.#flush_timer);
    this.#flush_timer = undefined;
    if (this.#pending === '') return;
    const text = this.#pending;
    this.#pending = '';
    this.options.stderr.write(text);
  }

  /** Shows the spinner with `label` (or relabels it); a no-op where no spinner shows. */
  start_spinner(label: string): void {
    if (!this.spins) return;
    this.#spinner_label = label;
    if (this.#spinner) return;
    const draw = () => {
      const frame = FRAMES[this.#frame++ % FRAMES.length] as string;
      this.err(`\r${this.options.err.cyan(frame)} ${this.#spinner_label}\u001b[K`);
    };
    draw();
    this.#spinner = setInterval(draw, 80);
    this.#spinner.unref();
  }

  clear_spinner(): void {
    if (!this.#spinner) return;
    clearInterval(this.#spinner);
    this.#spinner = undefined;
    this.err('\r\u001b[K');
  }

  #close_reasoning(): void {
    if (this.#reasoning_open) {
      this.err('\n');
      this.#reasoning_open = false;
    }
  }

  /** A model call starts: the spinner, and nothing of it streamed yet. */
  call_started(label: string): void {
    this.#streamed_text = false;
    this.#streamed_reasoning = false;
    this.start_spinner(label);
  }

  /** A piece of reasoning, shown dimmed on stderr when asked. */
  reasoning_delta(text: string): void {
    if (!this.options.show_reasoning) return;
    this.clear_spinner();
    this.#streamed_reasoning = true;
    // without colour a label tells the reasoning from the answer
    if (!this.#reasoning_open && !this.options.err.enabled) this.err(REASONING_LABEL);
    this.#reasoning_open = true;
    this.err(this.options.err.dim(text));
  }

  /** A piece of answer text: streamed to a terminal, else kept for the message's end. */
  text_delta(text: string): void {
    if (!this.live || !this.options.write_answer) return;
    this.clear_spinner();
    this.#close_reasoning();
    this.#streamed_text = true;
    this.#out(text);
  }

  /** A model call ended: its reasoning, when asked and not streamed. Call before `message`. */
  call_ended(reasoning: string | undefined): void {
    this.clear_spinner();
    const { err } = this.options;
    if (this.options.show_reasoning && !this.#streamed_reasoning && reasoning) {
      this.err(`${err.enabled ? '' : REASONING_LABEL}${err.dim(reasoning)}\n`);
    }
    this.#close_reasoning();
  }

  /** The `-v` line of one model call (a no-op without `verbose`). */
  call_report(call: CallReport): void {
    if (this.options.verbose !== true) return;
    const usage = call.usage ? `, ${usage_text(call.usage)}` : '';
    const dollars = call.cost === undefined ? '' : `, ${format_dollars(call.cost)}`;
    this.err(
      `${this.options.err.dim(`turn ${call.turn}: ${call.provider ?? '?'}/${call.model ?? '?'} answered in ${format_duration(call.duration_ms)}${usage}${dollars}`)}\n`,
    );
  }

  /**
   * A complete assistant message: on a terminal, what did not stream and the end of its line;
   * through a pipe the final answer to stdout and text written before tool calls, dimmed, to
   * stderr.
   */
  message(content: string, final: boolean): void {
    if (!this.options.write_answer) return;
    if (this.live) {
      if (!this.#streamed_text && content) this.#out(content);
      if ((this.#streamed_text || content) && !content.endsWith('\n')) this.#out('\n');
    } else if (final) {
      if (content === '') return;
      this.#out(content.endsWith('\n') ? content : `${content}\n`);
    } else if (content.trim() !== '') {
      this.err(`${this.options.err.dim(content.trimEnd())}\n`);
    }
  }

  /** The line of a finished tool call (not with `quiet`). */
  tool_line(call: ToolLine): void {
    this.clear_spinner();
    if (this.options.quiet === true) return;
    const { err } = this.options;
    const mark = call.ok ? err.green('✓') : err.red('✗');
    // arguments that did not parse: say so, never a made-up path
    const hint = call.unparsed ? '(arguments are not JSON)' : argument_hint(call.args);
    // every line of a failure, indented under the call, up to a screenful
    const lines = (call.error ?? '').trimEnd().split('\n');
    const shown = lines.slice(0, 12);
    if (lines.length > shown.length) shown.push(`… ${lines.length - shown.length} more lines`);
    const reason = call.ok
      ? ''
      : ` — ${shown[0] ?? ''}${
          shown.length > 1
            ? `\n${shown
                .slice(1)
                .map((line) => `    ${line}`)
                .join('\n')}`
            : ''
        }`;
    const confined =
      call.sandbox === undefined
        ? ''
        : call.sandbox === 'none'
          ? ` ${err.yellow('[not sandboxed]')}`
          : ` ${err.dim(`[sandboxed: ${call.sandbox}]`)}`;
    this.err(
      `${mark} ${call.name}${hint ? ` ${hint}` : ''} ${err.dim(format_duration(call.duration_ms))}${confined}${reason}\n`,
    );
  }

  /** A spending limit's line: mostly used (`warning`, not with `quiet`) or reached (`stop`). */
  budget_note(level: 'warning' | 'stop', message: string): void {
    this.clear_spinner();
    if (this.options.quiet === true && level === 'warning') return;
    this.err(this.options.err.yellow(`${level === 'stop' ? 'stopped: ' : ''}${message}\n`));
  }

  /** The line saying the turns ran out (not with `quiet`). */
  turns_note(message: string): void {
    this.clear_spinner();
    if (this.options.quiet === true) return;
    this.err(this.options.err.yellow(`${message}\n`));
  }

  /** The note of a compaction of the history (not with `quiet`). */
  compaction(outcome: {
    ok: boolean;
    before_count: number;
    after_count: number;
    error?: string | undefined;
  }): void {
    this.clear_spinner();
    if (this.options.quiet === true) return;
    this.err(
      this.options.err.dim(
        outcome.ok
          ? `compressed the history: ${outcome.before_count} → ${outcome.after_count} messages\n`
          : `could not compress the history: ${outcome.error ?? 'unknown error'}\n`,
      ),
    );
  }

  /** Stops the spinner and writes what is pending. Idempotent. */
  stop(): void {
    this.clear_spinner();
    this.#close_reasoning();
    this.#flush();
  }

  /**
   * Ends the line an answer left open on a terminal (cut by Ctrl+C), so a notice after it starts
   * on a line of its own. Idempotent.
   */
  finish_line(): void {
    if (!this.#stdout_mid_line || !this.live) return;
    this.options.stdout.write('\n');
    this.#stdout_mid_line = false;
  }
}
