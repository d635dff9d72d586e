import type { AgentEvent, Usage } from '@lich/core';
import type { Pricer } from './run_report.js';
import { set_status_clearer } from './status_line.js';
import type { Style } from './style.js';

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

/**
 * How long progress written to stderr may wait to be written together with what follows: a write
 * to a terminal or a pipe is a system call that wakes the reader, and a fast run makes several
 * per turn. Less than a person notices.
 */
const FLUSH_MS = 50;

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** `3 ms`, `1.2 s`. */
export function format_duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A short view of a call's arguments: the first string value, on one line. */
function argument_hint(args: unknown): string {
  if (typeof args !== 'object' || args === null) return '';
  for (const value of Object.values(args)) {
    if (typeof value === 'string' && value !== '') {
      const line = value.replace(/\s+/g, ' ');
      return line.length > 60 ? `${line.slice(0, 59)}…` : line;
    }
  }
  return '';
}

/** Leads the reasoning on stderr when colour is off (dimmed text tells it apart otherwise). */
export const REASONING_LABEL = '[reasoning] ';

/**
 * Shows a run as it happens. stdout gets the answer and nothing else: on a terminal it streams
 * live; through a pipe each turn's text is written when the turn ends, so text the model writes
 * before calling tools goes to stderr and stdout holds exactly the answer. stderr gets a spinner
 * while the model thinks (terminals only), one line per tool call with its outcome and time, and
 * the reasoning when asked. `listener` never throws. What goes to stderr is written at most
 * `FLUSH_MS` later, and always before anything goes to stdout and when the view stops.
 */
export class ProgressView {
  readonly #options: ProgressOptions;
  #pending = '';
  #flush_timer: NodeJS.Timeout | undefined;
  readonly #stderr = { write: (text: string) => this.#write_err(text) };
  readonly #stdout = {
    write: (text: string) => {
      this.#flush();
      this.#options.stdout.write(text);
      if (text !== '') this.#stdout_mid_line = !text.endsWith('\n');
    },
  };
  /** Whether what went to stdout last left a line open (an answer cut mid-stream). */
  #stdout_mid_line = false;
  readonly #live: boolean;
  /** Whether a spinner shows while waiting: on a terminal, unless quiet. */
  readonly #spins: boolean;
  readonly #tool_args = new Map<string, unknown>();
  readonly tool_calls: ToolCallSummary[] = [];
  #spinner: NodeJS.Timeout | undefined;
  #spinner_label = '';
  #frame = 0;
  #streamed_text = false;
  #streamed_reasoning = false;
  #reasoning_open = false;
  /** The final answer's text, once known. */
  answer: string | null = null;

  constructor(options: ProgressOptions) {
    this.#options = options;
    this.#live = options.stdout.isTTY === true;
    this.#spins = options.stderr.isTTY === true && options.quiet !== true;
    // a warning or note written meanwhile comes after the progress so far, on a clean line
    set_status_clearer(() => {
      this.#clear_spinner();
      this.#flush();
    });
  }

  /** Hears the agent's events. */
  readonly listener = (event: AgentEvent): void => {
    try {
      this.#handle(event);
    } catch {
      // showing progress must never break the run
    }
  };

  #write_err(text: string): void {
    this.#pending += text;
    if (this.#flush_timer !== undefined) return;
    this.#flush_timer = setTimeout(() => this.#flush(), FLUSH_MS);
    this.#flush_timer.unref();
  }

  #flush(): void {
    if (this.#flush_timer !== undefined) clearTimeout(this.#flush_timer);
    this.#flush_timer = undefined;
    if (this.#pending === '') return;
    const text = this.#pending;
    this.#pending = '';
    this.#options.stderr.write(text);
  }

  #start_spinner(label: string): void {
    if (!this.#spins) return;
    this.#spinner_label = label;
    if (this.#spinner) return;
    const draw = () => {
      const frame = FRAMES[this.#frame++ % FRAMES.length] as string;
      this.#write_err(`\r${this.#options.err.cyan(frame)} ${this.#spinner_label}\u001b[K`);
    };
    draw();
    this.#spinner = setInterval(draw, 80);
    this.#spinner.unref();
  }

  #clear_spinner(): void {
    if (!this.#spinner) return;
    clearInterval(this.#spinner);
    this.#spinner = undefined;
    this.#write_err('\r\u001b[K');
  }

  #close_reasoning(): void {
    if (this.#reasoning_open) {
      this.#write_err('\n');
      this.#reasoning_open = false;
    }
  }

  #handle(event: AgentEvent): void {
    const { err } = this.#options;
    const stdout = this.#stdout;
    const stderr = this.#stderr;
    switch (event.type) {
      case 'llm_start':
        this.#streamed_text = false;
        this.#streamed_reasoning = false;
        this.#start_spinner(event.grace ? 'wrapping up…' : 'thinking…');
        return;
      case 'llm_delta':
        if (event.delta.kind === 'reasoning') {
          if (!this.#options.show_reasoning) return;
          this.#clear_spinner();
          this.#streamed_reasoning = true;
          // without colour a label tells the reasoning from the answer
          if (!this.#reasoning_open && !err.enabled) stderr.write(REASONING_LABEL);
          this.#reasoning_open = true;
          stderr.write(err.dim(event.delta.text));
          return;
        }
        if (!this.#live || !this.#options.write_answer) return;
        this.#clear_spinner();
        this.#close_reasoning();
        this.#streamed_text = true;
        stdout.write(event.delta.text);
        return;
      case 'llm_end': {
        this.#clear_spinner();
        const { message } = event;
        if (this.#options.show_reasoning && !this.#streamed_reasoning && message.reasoning) {
          stderr.write(`${err.enabled ? '' : REASONING_LABEL}${err.dim(message.reasoning)}\n`);
        }
        this.#close_reasoning();
        if (this.#options.verbose === true) {
          const usage = event.usage ? `, ${usage_text(event.usage)}` : '';
          const cost = this.#options.price?.(
            event.usage ?? { input_tokens: 0, output_tokens: 0 },
            event.provider,
            event.model,
          );
          const dollars =
            this.#options.price === undefined ? '' : `, ${format_dollars(cost ?? null)}`;
          stderr.write(
            `${err.dim(`turn ${event.turn}: ${event.provider ?? '?'}/${event.model ?? '?'} answered in ${format_duration(event.duration_ms)}${usage}${dollars}`)}\n`,
          );
        }
        const final = !message.tool_calls || message.tool_calls.length === 0;
        if (final) this.answer = message.content;
        if (!this.#options.write_answer) return;
        if (this.#live) {
          if (!this.#streamed_text && message.content) stdout.write(message.content);
          if ((this.#streamed_text || message.content) && !message.content.endsWith('\n')) {
            stdout.write('\n');
          }
        } else if (final) {
          if (message.content === '') return;
          stdout.write(message.content.endsWith('\n') ? message.content : `${message.content}\n`);
        } else if (message.content.trim() !== '') {
          stderr.write(`${err.dim(message.content.trimEnd())}\n`);
        }
        return;
      }
      case 'tool_call_start':
        this.#tool_args.set(event.call.id, event.args);
        // the label is made only where a spinner shows it
        if (this.#spins)
          this.#start_spinner(`${event.call.name} ${argument_hint(event.args)}`.trimEnd());
        return;
      case 'tool_call_end': {
        this.#clear_spinner();
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
        if (this.#options.quiet === true) return;
        const mark = result.ok ? err.green('✓') : err.red('✗');
        // arguments that did not parse: say so, never a made-up path
        const unparsed =
          this.#tool_args.has(event.call.id) && this.#tool_args.get(event.call.id) === undefined;
        const hint = unparsed ? '(arguments are not JSON)' : argument_hint(args);
        // every line of a failure, indented under the call, up to a screenful
        const lines = (summary.error ?? '').trimEnd().split('\n');
        const shown = lines.slice(0, 12);
        if (lines.length > shown.length) shown.push(`… ${lines.length - shown.length} more lines`);
        const reason = result.ok
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
          result.sandbox === undefined
            ? ''
            : result.sandbox === 'none'
              ? ` ${err.yellow('[not sandboxed]')}`
              : ` ${err.dim(`[sandboxed: ${result.sandbox}]`)}`;
        stderr.write(
          `${mark} ${event.call.name}${hint ? ` ${hint}` : ''} ${err.dim(format_duration(result.duration_ms))}${confined}${reason}\n`,
        );
        return;
      }
      case 'compress_start':
        this.#start_spinner('compressing the history…');
        return;
      case 'compress_end':
        this.#clear_spinner();
        if (this.#options.quiet === true) return;
        stderr.write(
          err.dim(
            event.ok
              ? `compressed the history: ${event.before_count} → ${event.after_count} messages\n`
              : `could not compress the history: ${event.error ?? 'unknown error'}\n`,
          ),
        );
        return;
      case 'budget':
        this.#clear_spinner();
        if (this.#options.quiet === true && event.level === 'warning') return;
        stderr.write(err.yellow(`${event.level === 'stop' ? 'stopped: ' : ''}${event.message}\n`));
        return;
      case 'budget_exhausted':
        this.#clear_spinner();
        if (this.#options.quiet === true) return;
        stderr.write(
          err.yellow(
            `${event.max_turns === 1 ? 'used the 1 turn allowed' : `used all ${event.max_turns} turns`}${event.grace ? '; asking for a final answer' : ''}\n`,
          ),
        );
        return;
      case 'run_end':
        this.stop();
        return;
      default:
        return;
    }
  }

  /** Stops the spinner and writes what is pending. Idempotent. */
  stop(): void {
    this.#clear_spinner();
    this.#close_reasoning();
    this.#flush();
  }

  /**
   * Ends the line an answer left open on a terminal (cut by Ctrl+C), so a notice after it starts
   * on a line of its own. Idempotent.
   */
  finish_line(): void {
    if (!this.#stdout_mid_line || !this.#live) return;
    this.#options.stdout.write('\n');
    this.#stdout_mid_line = false;
  }
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
