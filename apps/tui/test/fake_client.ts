/**
 * A scriptable `TuiClient` for tests of the controller and the screen: it records each call,
 * numbers the events a test emits per session, keeps a replay ring, and answers `truncated` for
 * another epoch, as the real host does.
 */
import type {
  CommandInfo,
  HostEvent,
  HostEventPayloads,
  HostEventType,
  RewindOutcome,
  RewindPoint,
  RewindRequest,
  SessionInfo,
  SubscribeOptions,
} from '@lich/agent';
import type { Message } from '@lich/core';
import type { ConnectionState, TuiClient } from '../src/client.js';

type Listener = (event: HostEvent) => void;

/** A fake client; `emit` sends an event to the session's subscribers. */
export class FakeClient implements TuiClient {
  epoch = 'epoch-1';
  readonly mode = 'local' as const;
  readonly calls: { method: string; args: unknown[] }[] = [];
  readonly sessions = new Map<string, SessionInfo>();
  readonly histories = new Map<string, Message[]>();
  readonly ring = new Map<string, HostEvent[]>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly seqs = new Map<string, number>();
  private readonly connection_listeners = new Set<(state: ConnectionState) => void>();
  private session_counter = 0;
  private turn_counter = 0;
  commands_list: CommandInfo[] = [
    { name: 'model', description: 'switch model', argument_hint: '<model>' },
  ];
  /** What `respond_permission` answers. */
  permission_known = true;
  /** Called on each prompt; a test can emit the turn's events from here. */
  on_prompt: (session_id: string, input: string, turn_id: string) => void = () => undefined;
  closed = false;
  /** The next emitted event is held in the ring but not delivered (a lost message). */
  drop_next = false;

  private record(method: string, ...args: unknown[]) {
    this.calls.push({ method, args });
  }

  /** The calls of one method, by their arguments. */
  calls_of(method: string): unknown[][] {
    return this.calls.filter((call) => call.method === method).map((call) => call.args);
  }

  make_info(session_id: string, overrides: Partial<SessionInfo> = {}): SessionInfo {
    return {
      session_id,
      title: '',
      path: null,
      work_dir: '/work',
      model: 'fake-model',
      provider: 'openai_compat',
      created: '2026-01-01T00:00:00.000Z',
      updated: '2026-01-01T00:00:00.000Z',
      live: true,
      busy: false,
      queued: 0,
      approval_mode: 'default',
      usage_total: { input_tokens: 0, output_tokens: 0 },
      ...overrides,
    };
  }

  /** Sends one event of `session_id` with its next seq. */
  emit<K extends HostEventType>(
    session_id: string,
    type: K,
    payload: HostEventPayloads[K],
  ): HostEvent {
    const seq = (this.seqs.get(session_id) ?? 0) + 1;
    this.seqs.set(session_id, seq);
    const event = { session_id, epoch: this.epoch, seq, type, payload } as HostEvent;
    const ring = this.ring.get(session_id) ?? [];
    ring.push(event);
    this.ring.set(session_id, ring);
    if (this.drop_next) {
      this.drop_next = false;
      return event;
    }
    for (const listener of this.listeners.get(session_id) ?? []) listener(event);
    return event;
  }

  /** Simulates a restarted backend: a new epoch, seqs from 1, nothing held. */
  restart(): void {
    this.epoch = `epoch-${Number(this.epoch.split('-')[1]) + 1}`;
    this.seqs.clear();
    this.ring.clear();
    this.listeners.clear();
  }

  report(state: ConnectionState): void {
    for (const listener of this.connection_listeners) listener(state);
  }

  async create(options?: { approval_mode?: string }): Promise<SessionInfo> {
    this.record('create', ...(options === undefined ? [] : [options]));
    const info = this.make_info(`session-${++this.session_counter}`);
    this.sessions.set(info.session_id, info);
    this.histories.set(info.session_id, []);
    return info;
  }

  async load(session_id: string): Promise<SessionInfo> {
    this.record('load', session_id);
    const info = this.sessions.get(session_id);
    if (info === undefined) throw new Error(`unknown session ${session_id}`);
    return info;
  }

  async list(): Promise<SessionInfo[]> {
    this.record('list');
    return [...this.sessions.values()].reverse();
  }

  async get(session_id: string): Promise<SessionInfo> {
    return this.load(session_id);
  }

  async history(session_id: string): Promise<Message[]> {
    this.record('history', session_id);
    return this.histories.get(session_id) ?? [];
  }

  async prompt(session_id: string, input: string, options?: { client_request_id?: string }) {
    this.record('prompt', session_id, input, options);
    const turn_id = `turn-${++this.turn_counter}`;
    this.on_prompt(session_id, input, turn_id);
    return { turn_id, queued: false };
  }

  async follow_up(session_id: string, text: string) {
    this.record('follow_up', session_id, text);
    return { turn_id: `turn-${++this.turn_counter}`, queued: true };
  }

  async steer(session_id: string, text: string) {
    this.record('steer', session_id, text);
  }

  /** What `interrupt` takes back. */
  queued_texts: string[] = [];

  async interrupt(session_id: string) {
    this.record('interrupt', session_id);
    const queued = this.queued_texts.splice(0);
    return { aborted: true, queued };
  }

  async abort(session_id: string) {
    this.record('abort', session_id);
    return true;
  }

  async subscribe(session_id: string, listener: Listener, options: SubscribeOptions = {}) {
    this.record('subscribe', session_id, options);
    const set = this.listeners.get(session_id) ?? new Set();
    this.listeners.set(session_id, set);
    let replayed = 0;
    let truncated = false;
    if (options.after_seq !== undefined) {
      if (options.epoch !== undefined && options.epoch !== this.epoch) {
        truncated = true;
      } else {
        for (const event of this.ring.get(session_id) ?? []) {
          if (event.seq > options.after_seq) {
            listener(event);
            replayed += 1;
          }
        }
      }
    }
    set.add(listener);
    return { replayed, truncated, unsubscribe: () => set.delete(listener) };
  }

  async respond_permission(request_id: string, option: string, note?: string) {
    if (note === undefined) this.record('respond_permission', request_id, option);
    else this.record('respond_permission', request_id, option, note);
    return this.permission_known;
  }

  async set_approval_mode(session_id: string, mode: string) {
    this.record('set_approval_mode', session_id, mode);
  }

  async commands(): Promise<CommandInfo[]> {
    return this.commands_list;
  }

  async run_command(session_id: string, name: string, args?: string) {
    this.record('run_command', session_id, name, args);
    return { ok: true, output: `ran /${name}${args ? ` ${args}` : ''}` };
  }

  /** What `rewind_points` answers. */
  rewind_points_list: RewindPoint[] = [];
  /** Answers `rewind` (a test may emit `session.rewound` from here). */
  on_rewind: (session_id: string, request: RewindRequest) => RewindOutcome = () => ({
    status: 'nothing',
    redo: false,
    summary: 'Nothing to rewind.',
  });

  async rewind_points(session_id: string) {
    this.record('rewind_points', session_id);
    return this.rewind_points_list;
  }

  async rewind(session_id: string, request: RewindRequest) {
    this.record('rewind', session_id, request);
    return this.on_rewind(session_id, request);
  }

  on_connection(listener: (state: ConnectionState) => void) {
    this.connection_listeners.add(listener);
    return () => this.connection_listeners.delete(listener);
  }

  async close() {
    this.record('close');
    this.closed = true;
  }
}
