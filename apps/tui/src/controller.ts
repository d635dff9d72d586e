/**
 * What the TUI does, apart from drawing: opens the session, feeds host events to the store,
 * turns submitted text into prompts, follow-ups, steering or slash commands, answers permission
 * requests, and resubscribes after a gap or a lost backend. No ink here: the screen calls these
 * methods and reads the store.
 */
import type {
  ApprovalMode,
  CommandInfo,
  HostEvent,
  PermissionOption,
  Subscription,
} from '@lich/agent';
import type { ConnectionState, TuiClient } from './client.js';
import { KEYS_HELP, LOCAL_COMMANDS } from './local_commands.js';
import { resolve_session_id } from './resolve_session_id.js';
import { RewindController } from './rewind_controller.js';
import type { TuiStore } from './store.js';
import { list_description } from './text_fit.js';

export { LOCAL_COMMANDS } from './local_commands.js';

/** Which session a launch opens. */
export type OpenSession =
  | { kind: 'new' }
  /** The work dir's most recent session (a new one when there is none). */
  | { kind: 'continue' }
  | { kind: 'resume'; session_id: string }
  /** A picker of the work dir's sessions (a new one when there is none). */
  | { kind: 'pick' };

const APPROVAL_CYCLE: readonly ApprovalMode[] = ['default', 'auto_edit', 'plan', 'yolo'];

function message_of(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The TUI's controller. */
export class TuiController {
  readonly client: TuiClient;
  readonly store: TuiStore;
  /** The slash commands on offer: the host's and the local ones. */
  commands: readonly CommandInfo[] = LOCAL_COMMANDS;
  /** Resolves with the exit code once the person leaves. */
  readonly exited: Promise<number>;
  private resolve_exit!: (code: number) => void;
  private subscription: Subscription | null = null;
  private resyncing = false;
  private request_counter = 0;
  private stop_connection: () => void;
  private closed = false;
  private opened: Promise<void> | null = null;
  private resolve_pick: ((session_id: string | null) => void) | null = null;
  /** `/rewind`: its picker and what it shows after a rewind. */
  readonly rewind: RewindController;

  /** What new sessions are created with (the approval mode of `--approval-mode`). */
  private readonly create_options: { approval_mode?: ApprovalMode };

  constructor(client: TuiClient, store: TuiStore, options: { approval_mode?: ApprovalMode } = {}) {
    this.client = client;
    this.store = store;
    this.create_options =
      options.approval_mode === undefined ? {} : { approval_mode: options.approval_mode };
    this.exited = new Promise((resolve) => {
      this.resolve_exit = resolve;
    });
    this.rewind = new RewindController({
      client,
      store,
      session_id: () => this.session_id,
      busy: () => this.busy(),
    });
    this.stop_connection = client.on_connection((state) => this.on_connection(state));
    store.subscribe(() => {
      if (this.store.get_state().needs_resync && !this.resyncing) void this.resync();
    });
  }

  /** The open session's id; throws before `start`. */
  get session_id(): string {
    const session = this.store.get_state().session;
    if (session === null) throw new Error('no session is open');
    return session.session_id;
  }

  /**
   * Opens the session and starts listening. Rejects when the session cannot be opened; text
   * submitted meanwhile waits for it.
   */
  start(open: OpenSession): Promise<void> {
    this.opened = this.open(open);
    return this.opened;
  }

  private async open(open: OpenSession): Promise<void> {
    let info: Awaited<ReturnType<TuiClient['create']>>;
    if (open.kind === 'pick') {
      const sessions = await this.client.list();
      if (sessions.length > 0) {
        const chosen = new Promise<string | null>((resolve) => {
          this.resolve_pick = resolve;
        });
        this.store.dispatch({ type: 'picker_open', sessions });
        const session_id = await chosen;
        this.store.dispatch({ type: 'picker_close' });
        info = session_id === null ? await this.new_session() : await this.client.load(session_id);
      } else {
        info = await this.new_session();
      }
    } else if (open.kind === 'resume') {
      info = await this.client.load(await resolve_session_id(this.client, open.session_id));
    } else if (open.kind === 'continue') {
      const latest = (await this.client.list())[0];
      info =
        latest === undefined ? await this.new_session() : await this.client.load(latest.session_id);
    } else {
      info = await this.new_session();
    }
    await this.attach(info);
    await this.refresh_commands();
  }

  private new_session(): ReturnType<TuiClient['create']> {
    return this.client.create(this.create_options);
  }

  private async attach(info: Awaited<ReturnType<TuiClient['create']>>): Promise<void> {
    const history = (await this.client.history(info.session_id)).filter(
      (message) => message.role !== 'system',
    );
    this.subscription?.unsubscribe();
    this.store.dispatch({ type: 'session_opened', info, epoch: this.client.epoch, history });
    this.subscription = await this.client.subscribe(info.session_id, (event) =>
      this.on_event(event),
    );
  }

  private on_event(event: HostEvent): void {
    this.store.push_event(event);
    this.rewind.on_event(event);
  }

  private async refresh_commands(): Promise<void> {
    try {
      const remote = await this.client.commands(this.session_id);
      const local = new Set(LOCAL_COMMANDS.map((command) => command.name));
      this.commands = [...LOCAL_COMMANDS, ...remote.filter((command) => !local.has(command.name))];
    } catch {
      this.commands = LOCAL_COMMANDS;
    }
  }

  /** Answers the session picker: the highlighted session, or null for a new one. */
  pick(session_id: string | null): void {
    const resolve = this.resolve_pick;
    this.resolve_pick = null;
    resolve?.(session_id);
  }

  /** Whether a run is in flight (or queued) as far as the screen knows. */
  busy(): boolean {
    const state = this.store.get_state();
    return state.turn !== null || state.session?.busy === true;
  }

  /**
   * Handles submitted text: a slash command, else a prompt (a follow-up while a run is in flight,
   * or steering with `steer: true`). Never rejects: failures become lines on screen.
   */
  async submit(text: string, options: { steer?: boolean } = {}): Promise<void> {
    const input = text.trim();
    if (input === '') return;
    if (/^\/(quit|exit)\s*$/i.test(input)) {
      this.exit(0);
      return;
    }
    try {
      await this.opened;
      if (input.startsWith('/') && !input.startsWith('//')) {
        await this.slash(input);
      } else if (options.steer) {
        await this.steer(input);
      } else {
        await this.send(input);
      }
    } catch (error) {
      this.store.dispatch({ type: 'notice', level: 'error', text: message_of(error) });
    }
  }

  private async send(input: string): Promise<void> {
    const client_request_id = `tui-${++this.request_counter}`;
    if (!this.busy()) {
      // a person typed it: `@path` attaches the file (C31)
      await this.client.prompt(this.session_id, input, {
        client_request_id,
        attach_mentions: true,
      });
      return;
    }
    this.store.dispatch({ type: 'queued', text: input, client_request_id });
    try {
      // typed while a run goes on: its `@path` files go with it all the same (C31)
      await this.client.follow_up(this.session_id, input, { attach_mentions: true });
    } catch (error) {
      this.store.dispatch({ type: 'unqueued', client_request_id });
      throw error;
    }
  }

  private async steer(input: string): Promise<void> {
    this.store.dispatch({ type: 'steer_sent', text: input });
    await this.client.steer(this.session_id, input);
  }

  private async slash(input: string): Promise<void> {
    const space = input.search(/\s/);
    const name = (space === -1 ? input.slice(1) : input.slice(1, space)).toLowerCase();
    const args = space === -1 ? '' : input.slice(space + 1).trim();
    switch (name) {
      case 'quit':
      case 'exit':
        this.exit(0);
        return;
      case 'clear':
        await this.clear();
        return;
      case 'help':
        this.store.dispatch({
          type: 'command_output',
          name: 'help',
          ok: true,
          output: this.help(),
        });
        return;
      case 'steer':
        if (args === '') throw new Error('/steer needs the text to send: /steer <text>');
        await this.steer(args);
        return;
      case 'rewind':
        await this.rewind.command(args);
        return;
    }
    if (!this.commands.some((command) => command.name === name)) {
      this.store.dispatch({
        type: 'notice',
        level: 'error',
        text: `unknown command /${name} (/help lists them)`,
      });
      return;
    }
    const result = await this.client.run_command(this.session_id, name, args || undefined);
    // a custom command's prompt goes to the model as if typed
    if (result.prompt !== undefined) {
      if (result.output !== '')
        this.store.dispatch({ type: 'notice', level: 'info', text: result.output });
      await this.send(result.prompt);
      return;
    }
    this.store.dispatch({
      type: 'command_output',
      name,
      args,
      ok: result.ok,
      output: result.output,
    });
  }

  private help(): string {
    // the argument hint next to its command, the descriptions in one aligned column
    const labels = this.commands.map(
      (command) => `/${command.name}${command.argument_hint ? ` ${command.argument_hint}` : ''}`,
    );
    const width = Math.max(...labels.map((label) => label.length));
    const lines = this.commands.map(
      (command, index) =>
        `${(labels[index] ?? '').padEnd(width)}  ${list_description(command.description)}`,
    );
    return `${lines.join('\n')}\n\n${KEYS_HELP}`;
  }

  /** Starts a new conversation in a new session; the old one stays on disk and on screen above. */
  async clear(): Promise<void> {
    const previous = this.store.get_state().session;
    if (previous !== null) await this.client.abort(previous.session_id).catch(() => false);
    this.subscription?.unsubscribe();
    this.subscription = null;
    this.store.dispatch({ type: 'clear' });
    const info = await this.new_session();
    await this.attach(info);
    this.store.dispatch({ type: 'notice', level: 'info', text: `new session ${info.session_id}` });
  }

  /** Aborts the run in flight; resolves false when there was none. */
  async abort(): Promise<boolean> {
    const session = this.store.get_state().session;
    if (session === null) return false;
    try {
      return await this.client.abort(session.session_id);
    } catch (error) {
      this.store.dispatch({ type: 'notice', level: 'error', text: message_of(error) });
      return false;
    }
  }

  /**
   * What Esc (or Ctrl+C) during a run means: the run stops and nothing queued starts by itself.
   * Resolves with the texts taken back (queued follow-ups, steering), oldest first, for the
   * editor; none on failure (a notice says why).
   */
  async interrupt(): Promise<string[]> {
    const session = this.store.get_state().session;
    if (session === null) return [];
    try {
      const { queued } = await this.client.interrupt(session.session_id);
      this.store.dispatch({ type: 'queue_taken' });
      return queued;
    } catch (error) {
      this.store.dispatch({ type: 'notice', level: 'error', text: message_of(error) });
      return [];
    }
  }

  /** Answers the oldest pending permission request. */
  async answer_permission(option: PermissionOption, note?: string): Promise<void> {
    const request = this.store.get_state().permissions[0];
    if (request === undefined) return;
    try {
      const known = await this.client.respond_permission(request.request_id, option, note);
      if (!known) {
        this.store.dispatch({
          type: 'notice',
          level: 'warn',
          text: 'that request was already answered',
        });
      }
    } catch (error) {
      this.store.dispatch({ type: 'notice', level: 'error', text: message_of(error) });
    }
  }

  /** Moves the session to the next approval mode (default → auto_edit → plan → yolo → default). */
  async cycle_approval_mode(): Promise<void> {
    const session = this.store.get_state().session;
    if (session === null) return;
    const next =
      APPROVAL_CYCLE[(APPROVAL_CYCLE.indexOf(session.approval_mode) + 1) % APPROVAL_CYCLE.length]!;
    try {
      await this.client.set_approval_mode(session.session_id, next);
      this.store.dispatch({ type: 'notice', level: 'info', text: `approval mode: ${next}` });
    } catch (error) {
      this.store.dispatch({ type: 'notice', level: 'error', text: message_of(error) });
    }
  }

  /** Asks the TUI to end with `code`. */
  exit(code: number): void {
    this.resolve_exit(code);
  }

  private on_connection(state: ConnectionState): void {
    if (state.kind === 'lost') {
      this.store.dispatch({
        type: 'notice',
        level: 'warn',
        text: `backend lost (${state.reason}); restarting it`,
      });
    } else if (state.kind === 'failed') {
      this.store.dispatch({
        type: 'notice',
        level: 'error',
        text: `backend failed: ${state.reason}`,
      });
      this.exit(1);
    } else {
      void this.resync({ reload: true });
    }
  }

  /**
   * Subscribes again from the last event seen. The host replays what was missed, or answers
   * `truncated` (another epoch, or events it no longer holds): the session's history is fetched
   * again and the screen says so.
   */
  async resync(options: { reload?: boolean } = {}): Promise<void> {
    if (this.resyncing || this.closed) return;
    const state = this.store.get_state();
    if (state.session === null) return;
    this.resyncing = true;
    const session_id = state.session.session_id;
    try {
      this.subscription?.unsubscribe();
      this.subscription = null;
      // A restarted backend holds no live session: make it live again before listening.
      const info = options.reload ? await this.client.load(session_id) : undefined;
      this.store.flush();
      const seen = this.store.get_state();
      const subscription = await this.client.subscribe(
        session_id,
        (event) => this.on_event(event),
        {
          ...(seen.last_seq === null ? {} : { after_seq: seen.last_seq }),
          ...(seen.epoch === null ? {} : { epoch: seen.epoch }),
        },
      );
      this.subscription = subscription;
      const history = subscription.truncated ? await this.client.history(session_id) : undefined;
      this.store.dispatch({
        type: 'resynced',
        epoch: this.client.epoch,
        truncated: subscription.truncated,
        at: Date.now(),
        ...(info === undefined ? {} : { info }),
        ...(history === undefined ? {} : { history }),
      });
    } catch (error) {
      this.store.dispatch({
        type: 'notice',
        level: 'error',
        text: `reconnect failed: ${message_of(error)}`,
      });
    } finally {
      this.resyncing = false;
    }
  }

  /** Stops listening and closes the client (and the backend it started). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stop_connection();
    this.subscription?.unsubscribe();
    this.subscription = null;
    this.store.dispose();
    await this.client.close();
  }
}
