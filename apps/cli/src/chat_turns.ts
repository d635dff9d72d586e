import type { HostEvent, HostEventPayloads, SessionHost, SessionInfo } from '@lich/agent';
import type { CommandContext } from './context.js';
import { type Interrupt, on_interrupt } from './interrupt.js';
import type { ProgressView } from './progress.js';
import { unanswered } from './unanswered.js';

/** How a chat's turns are said. */
export interface ChatTurnsOptions {
  /** A person at a terminal (a queued message is marked when its turn starts). */
  interactive: boolean;
  /** `-q`: no notes of queued or steering text. */
  quiet: boolean;
  /** The turns a run may take, for the warning when none answered. */
  max_turns: number;
}

/** How `settle` ended: every turn ran, or the person stopped them. */
export type Settled =
  | { interrupted: false }
  | {
      interrupted: true;
      /** 130 (Ctrl+C) or 143 (SIGTERM). */
      code: number;
      /** What waited in the queue and was taken back, oldest first. */
      taken_back: string[];
    };

/**
 * The turns of a chat's session in its `SessionHost`: sends messages (queued behind the run in
 * flight, as the TUI queues a follow-up), steers the run, waits for the turns to end, and says
 * how each ended: an abort, a failure (`lich: …` with hints), no answer. `failed` turns true for
 * a turn that failed or stopped at a limit without an answer. Ctrl+C or SIGTERM while `settle`
 * waits aborts the run and takes back what waited; a second Ctrl+C exits at once.
 */
export class ChatTurns {
  readonly #context: CommandContext;
  readonly #host: SessionHost;
  readonly #session: SessionInfo;
  readonly #view: ProgressView;
  readonly #options: ChatTurnsOptions;
  /** Messages handed to the host that it has not taken yet. */
  readonly #sending = new Set<Promise<unknown>>();
  /** Turns that waited in the queue. */
  readonly #queued = new Set<string>();
  #interrupt: Interrupt | undefined;
  /** True once a turn failed. */
  failed = false;

  constructor(
    context: CommandContext,
    host: SessionHost,
    session: SessionInfo,
    view: ProgressView,
    options: ChatTurnsOptions,
  ) {
    this.#context = context;
    this.#host = host;
    this.#session = session;
    this.#view = view;
    this.#options = options;
  }

  /** Hears the session's events (subscribe it): the view's, and how each turn ended. */
  readonly listener = (event: HostEvent): void => {
    this.#view.listener(event);
    const context = this.#context;
    if (event.type === 'turn.started' && this.#queued.delete(event.payload.turn_id)) {
      if (this.#options.interactive)
        context.say(`\n${context.err.dim(`› ${event.payload.input}`)}`);
    } else if (event.type === 'turn.completed') {
      this.#ended(event.payload);
    } else if (event.type === 'error' && event.payload.code !== 'session_write') {
      // a record that could not be written was said as a warning already
      context.warn(event.payload.message);
    }
  };

  #ended(turn: HostEventPayloads['turn.completed']): void {
    const context = this.#context;
    const { err } = context;
    if (turn.stop_reason === 'aborted') {
      if (this.#interrupt?.received !== 'SIGTERM') {
        const path = this.#session.path;
        context.say(err.yellow(`aborted${path ? `; session: ${path}` : ''}`));
      }
      return;
    }
    if (turn.stop_reason === 'error') {
      this.failed = true;
      context.say(`${err.red('lich:')} ${turn.error ?? 'the run failed'}`);
      for (const hint of turn.hints ?? []) context.say(err.dim(hint));
      return;
    }
    if ((turn.final ?? '').trim() !== '') return;
    const note = unanswered(turn.stop_reason, {
      budget: turn.budget,
      max_turns: this.#options.max_turns,
    });
    context.warn(note.warning);
    if (note.failed) this.failed = true;
  }

  /** Sends a message: it runs now, or after the turns before it (a note says it waits). */
  send(text: string): void {
    const sent = this.#host
      .prompt(this.#session.session_id, text, { attach_mentions: true })
      .then((ticket) => {
        if (!ticket.queued) return;
        this.#queued.add(ticket.turn_id);
        this.#note(`queued: ${text} (sent when the answer ends)`);
      })
      .catch((error: unknown) => {
        this.failed = true;
        this.#context.say(`${this.#context.err.red('lich:')} ${message_of(error)}`);
      })
      .finally(() => this.#sending.delete(sent));
    this.#sending.add(sent);
  }

  /** Puts text into the run in flight, before its next model call (none: it is a message). */
  steer(text: string): void {
    const sent = this.#host
      .steer(this.#session.session_id, text)
      .then(() => this.#note(`steering: ${text}`))
      .catch((error: unknown) =>
        this.#context.say(`${this.#context.err.red('lich:')} ${message_of(error)}`),
      )
      .finally(() => this.#sending.delete(sent));
    this.#sending.add(sent);
  }

  #note(text: string): void {
    if (!this.#options.quiet) this.#context.say(this.#context.err.dim(text));
  }

  async #all_sent(): Promise<void> {
    while (this.#sending.size > 0) await Promise.all([...this.#sending]);
  }

  /**
   * Resolves once every message sent has had its turn, or — on Ctrl+C or SIGTERM meanwhile —
   * once the run in flight stopped, with what waited taken back (nothing starts by itself).
   */
  async settle(): Promise<Settled> {
    const context = this.#context;
    const interrupt = on_interrupt((text) => {
      this.#view.stop();
      this.#view.finish_line();
      context.say(context.err.yellow(text));
    });
    this.#interrupt = interrupt;
    const stopped = new Promise<void>((resolve) => {
      interrupt.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    const id = this.#session.session_id;
    try {
      for (;;) {
        await Promise.race([this.#all_sent(), stopped]);
        if (!interrupt.signal.aborted) await Promise.race([this.#host.idle(id), stopped]);
        if (interrupt.signal.aborted) break;
        if (this.#sending.size === 0) return { interrupted: false };
      }
      const taken_back: string[] = [];
      // a message on its way lands in the queue: take it back too
      for (;;) {
        taken_back.push(...(await this.#host.interrupt(id)).queued);
        await this.#all_sent();
        if ((await this.#host.get(id)).queued === 0) break;
      }
      await this.#host.idle(id);
      this.#queued.clear();
      return { interrupted: true, code: interrupt.exit_code, taken_back };
    } finally {
      interrupt.dispose();
      this.#view.stop();
    }
  }
}

function message_of(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
