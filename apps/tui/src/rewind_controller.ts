/**
 * `/rewind` in the TUI: the picker of the session's prompts (which prompt, then what to restore,
 * then what to do about files someone else changed), and what the screen shows once a rewind
 * happened, here or from another client (`session.rewound`). No ink here.
 */
import {
  type HostEvent,
  parse_rewind_args,
  type RewindConflictChoice,
  type RewindOutcome,
  type RewindRequest,
} from '@lich/agent';
import type { TuiClient } from './client.js';
import type { TuiStore } from './store.js';

function message_of(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What the rewind controller works with. */
export interface RewindControllerDeps {
  client: TuiClient;
  store: TuiStore;
  /** The open session's id (throws before one is open). */
  session_id: () => string;
  /** Whether a run is in flight. */
  busy: () => boolean;
}

/** The TUI's `/rewind`. Every method reports failures on screen, except `command`, which throws. */
export class RewindController {
  readonly #deps: RewindControllerDeps;
  /** The rewind asked for at the picker, while its conflicts are shown. */
  #pending: RewindRequest | null = null;
  /** `session.rewound` events already acted on (`epoch:seq`): a replay does not act again. */
  readonly #seen = new Set<string>();

  constructor(deps: RewindControllerDeps) {
    this.#deps = deps;
  }

  /** Hears every host event of the session: acts on `session.rewound`, once per event. */
  on_event(event: HostEvent): void {
    if (event.type !== 'session.rewound') return;
    const key = `${event.epoch}:${event.seq}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    void this.#show_rewound(event.payload);
  }

  /**
   * A rewind happened: a rewound conversation is fetched again and drawn as a new transcript,
   * with the prompt put back in the input; a files-only one is a note.
   */
  async #show_rewound(outcome: RewindOutcome): Promise<void> {
    const conversation = outcome.conversation;
    try {
      if (conversation !== undefined && conversation.removed + conversation.restored > 0) {
        const history = (await this.#deps.client.history(this.#deps.session_id())).filter(
          (message) => message.role !== 'system',
        );
        const draft = outcome.redo ? null : (outcome.input ?? null);
        this.#deps.store.dispatch({
          type: 'history_replaced',
          history,
          notice: outcome.summary,
          draft,
        });
      } else {
        this.#deps.store.dispatch({
          type: 'command_output',
          name: 'rewind',
          ok: true,
          output: outcome.summary,
        });
      }
    } catch (error) {
      this.#deps.store.dispatch({ type: 'notice', level: 'error', text: message_of(error) });
    }
  }

  /**
   * `/rewind`: with no words, the picker of the session's prompts; with a prompt number (or
   * `--redo`), that rewind at once; `--help`-like words are the host's text command's.
   */
  async command(args: string): Promise<void> {
    const parsed = parse_rewind_args(args);
    if (this.#deps.busy()) {
      throw new Error('a run is in flight: /rewind when it has ended (Esc aborts it)');
    }
    if (!parsed.list) {
      await this.#run(parsed.request);
      return;
    }
    const points = await this.#deps.client.rewind_points(this.#deps.session_id());
    if (points.length === 0) {
      this.#deps.store.dispatch({
        type: 'notice',
        level: 'info',
        text: 'no prompts to rewind yet',
      });
      return;
    }
    this.#deps.store.dispatch({ type: 'rewind_open', points });
  }

  /** The picker's prompt is chosen: on to what to restore. */
  choose(): void {
    this.#deps.store.dispatch({ type: 'rewind_choose' });
  }

  /** What to restore is chosen: the rewind runs. */
  async confirm(): Promise<void> {
    const view = this.#deps.store.get_state().rewind;
    const point = view?.points[view.selected];
    const scope = view?.scopes[view.scope];
    if (view === null || point === undefined || scope === undefined) return;
    await this.#run({ prompt: point.prompt, scope });
  }

  /** Answers the picker's conflicts: overwrite or keep the files someone else changed. */
  async resolve(choice: Exclude<RewindConflictChoice, 'stop'>): Promise<void> {
    const request = this.#pending;
    if (request === null) return;
    await this.#run({ ...request, on_conflict: choice });
  }

  /** Closes the picker (Esc). */
  cancel(): void {
    this.#pending = null;
    this.#deps.store.dispatch({ type: 'rewind_close' });
  }

  async #run(request: RewindRequest): Promise<void> {
    const picking = this.#deps.store.get_state().rewind !== null;
    if (picking) this.#deps.store.dispatch({ type: 'rewind_working' });
    try {
      const outcome = await this.#deps.client.rewind(this.#deps.session_id(), request);
      if (outcome.status === 'conflicts' && picking) {
        this.#pending = request;
        this.#deps.store.dispatch({
          type: 'rewind_conflicts',
          conflicts: outcome.files?.conflicts ?? [],
        });
        return;
      }
      this.#pending = null;
      this.#deps.store.dispatch({ type: 'rewind_close' });
      // a rewind that happened is shown when its `session.rewound` event arrives
      if (outcome.status !== 'rewound') {
        const ok = outcome.status !== 'conflicts';
        this.#deps.store.dispatch({
          type: 'command_output',
          name: 'rewind',
          ok,
          output: outcome.summary,
        });
      }
    } catch (error) {
      this.#pending = null;
      this.#deps.store.dispatch({ type: 'rewind_close' });
      throw error;
    }
  }
}
