/**
 * A `SessionHost` in memory for the gateway bus's and the gateway adapters' tests
 * (`@lich/testkit/session_host`), with the real host's queueing and steering
 * semantics (FIFO prompts, one run per session, steering taken between model calls, leftover
 * steering run as a host-started prompt turn at the front of the queue, synchronous events).
 * A `disk` shared between instances stands for the session files, so a "restart" is a new fake
 * over the same disk.
 */
import type {
  ApprovalMode,
  CommandInfo,
  CommandResult,
  HostEvent,
  HostEventPayloads,
  HostEventType,
  PermissionOption,
  SessionHost,
  SessionHostErrorCode,
  SessionInfo,
  Subscription,
  TurnStopReason,
  TurnTicket,
} from '@lich/agent';
import { type ImagePart, is_budget_stop, type Message } from '@lich/core';

/**
 * What the real host throws, as `SessionHostError.is_instance` recognises it (by name and code),
 * without a runtime dependency on `@lich/agent`.
 */
class SessionHostError extends Error {
  override readonly name = 'SessionHostError';
  constructor(
    readonly code: SessionHostErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** What a fake run can do: answer, take steering between "model calls", watch its signal. */
export interface FakeTurn {
  session_id: string;
  turn_id: string;
  input: string;
  /** The history before this turn's input. */
  history: readonly Message[];
  signal: AbortSignal;
  /** Takes the steering texts waiting (as the loop does after tool results). */
  take_steering(): string[];
  /** Emits a permission request and resolves with the answer (`reject_once` with no approver). */
  ask_permission(title: string): Promise<PermissionOption | 'cancelled'>;
}

/** Decides a run's answer: the final text (or a thrown error: `stop_reason: 'error'`). */
export type FakeBehaviour = (turn: FakeTurn) => Promise<string | null> | string | null;

interface DiskSession {
  title: string;
  history: Message[];
  approval_mode: ApprovalMode;
  created: string;
}

interface QueuedTurn {
  turn_id: string;
  input: string;
  kind: 'prompt' | 'follow_up';
  client_request_id?: string;
}

interface Live {
  id: string;
  disk: DiskSession;
  seq: number;
  listeners: Set<{ listener: (event: HostEvent) => void; can_approve: boolean }>;
  queue: QueuedTurn[];
  steering: string[];
  run: { turn_id: string; controller: AbortController; done: Promise<void> } | null;
  idle: (() => void)[];
}

let counter = 0;

/** The fake. `calls` records every method call, `prompts` every run's input per session. */
export class FakeSessionHost implements SessionHost {
  readonly epoch = `fake-${++counter}`;
  readonly disk: Map<string, DiskSession>;
  behaviour: FakeBehaviour;
  readonly live = new Map<string, Live>();
  readonly prompts: { session_id: string; input: string; kind: string }[] = [];
  /** Every prompt sent with pictures, as `prompt` got it. */
  readonly prompt_images: {
    session_id: string;
    input: string;
    images: readonly ImagePart[];
  }[] = [];
  /** The `budget_scopes` of every prompt that named some, in order. */
  readonly budget_scopes: { sender?: string; conversation?: string }[] = [];
  readonly closed: string[] = [];
  /** Most runs in flight at once, across sessions. */
  max_parallel = 0;
  #running = 0;
  #next_id = 0;
  #pending_permissions = new Map<string, (option: PermissionOption | 'cancelled') => void>();
  #shut = false;

  constructor(options: { behaviour?: FakeBehaviour; disk?: Map<string, DiskSession> } = {}) {
    this.disk = options.disk ?? new Map();
    this.behaviour = options.behaviour ?? ((turn) => `echo: ${turn.input}`);
  }

  #live(session_id: string): Live {
    const live = this.live.get(session_id);
    if (live === undefined) {
      throw new SessionHostError('unknown_session', `no live session ${session_id}`);
    }
    return live;
  }

  #info(live: Live): SessionInfo {
    const zero = { input_tokens: 0, output_tokens: 0 };
    return {
      session_id: live.id,
      title: live.disk.title,
      path: null,
      work_dir: '/fake',
      model: 'fake',
      provider: 'fake',
      created: live.disk.created,
      updated: live.disk.created,
      live: true,
      busy: live.run !== null,
      queued: live.queue.length,
      approval_mode: live.disk.approval_mode,
      usage_total: zero as SessionInfo['usage_total'],
    };
  }

  #publish<K extends HostEventType>(live: Live, type: K, payload: HostEventPayloads[K]): void {
    live.seq += 1;
    const event = { session_id: live.id, epoch: this.epoch, seq: live.seq, type, payload };
    for (const entry of live.listeners) entry.listener(event as HostEvent);
  }

  #make_live(id: string, disk: DiskSession): Live {
    const live: Live = {
      id,
      disk,
      seq: 0,
      listeners: new Set(),
      queue: [],
      steering: [],
      run: null,
      idle: [],
    };
    this.live.set(id, live);
    return live;
  }

  async create(
    options: { title?: string; approval_mode?: ApprovalMode } = {},
  ): Promise<SessionInfo> {
    if (this.#shut) throw new SessionHostError('shutting_down', 'shut down');
    this.#next_id += 1;
    const id = `s${this.epoch}-${this.#next_id}`;
    const disk: DiskSession = {
      title: options.title ?? '',
      history: [],
      approval_mode: options.approval_mode ?? 'default',
      created: new Date().toISOString(),
    };
    this.disk.set(id, disk);
    return this.#info(this.#make_live(id, disk));
  }

  async load(session_id: string): Promise<SessionInfo> {
    const live = this.live.get(session_id);
    if (live !== undefined) return this.#info(live);
    const disk = this.disk.get(session_id);
    if (disk === undefined) throw new SessionHostError('unknown_session', `no ${session_id}`);
    return this.#info(this.#make_live(session_id, disk));
  }

  async list(): Promise<SessionInfo[]> {
    return [...this.live.values()].map((live) => this.#info(live));
  }

  async get(session_id: string): Promise<SessionInfo> {
    return this.#info(this.#live(session_id));
  }

  async history(session_id: string): Promise<Message[]> {
    const live = this.live.get(session_id);
    const disk = live?.disk ?? this.disk.get(session_id);
    if (disk === undefined) throw new SessionHostError('unknown_session', `no ${session_id}`);
    return [...disk.history];
  }

  async close(session_id: string): Promise<void> {
    const live = this.live.get(session_id);
    if (live === undefined) return;
    live.queue = [];
    live.steering = [];
    live.run?.controller.abort();
    await live.run?.done;
    live.listeners.clear();
    this.live.delete(session_id);
    this.closed.push(session_id);
  }

  async delete(session_id: string): Promise<void> {
    await this.close(session_id);
    this.disk.delete(session_id);
  }

  async set_title(session_id: string, title: string): Promise<void> {
    this.#live(session_id).disk.title = title;
  }

  async prompt(
    session_id: string,
    input: string,
    options: {
      client_request_id?: string;
      budget_scopes?: { sender?: string; conversation?: string };
      images?: readonly ImagePart[];
    } = {},
  ): Promise<TurnTicket> {
    if (this.#shut) throw new SessionHostError('shutting_down', 'shut down');
    if (options.images !== undefined) {
      this.prompt_images.push({ session_id, input, images: options.images });
    }
    if (options.budget_scopes !== undefined) this.budget_scopes.push(options.budget_scopes);
    return this.#enqueue(this.#live(session_id), input, 'prompt', options.client_request_id);
  }

  #enqueue(
    live: Live,
    input: string,
    kind: 'prompt' | 'follow_up',
    client_request_id?: string,
  ): TurnTicket {
    this.#next_id += 1;
    const turn: QueuedTurn = {
      turn_id: `t${this.#next_id}`,
      input,
      kind,
      ...(client_request_id === undefined ? {} : { client_request_id }),
    };
    const queued = live.run !== null || live.queue.length > 0;
    live.queue.push(turn);
    if (!queued) this.#start_next(live);
    return { turn_id: turn.turn_id, queued };
  }

  #start_next(live: Live): void {
    if (live.run !== null) return;
    const turn = live.queue.shift();
    if (turn === undefined) {
      for (const wake of live.idle.splice(0)) wake();
      return;
    }
    const controller = new AbortController();
    const run = { turn_id: turn.turn_id, controller, done: Promise.resolve() };
    live.run = run;
    run.done = this.#execute(live, turn, controller.signal).finally(() => {
      live.run = null;
      this.#start_next(live);
    });
  }

  async #execute(live: Live, turn: QueuedTurn, signal: AbortSignal): Promise<void> {
    this.#running += 1;
    this.max_parallel = Math.max(this.max_parallel, this.#running);
    this.prompts.push({ session_id: live.id, input: turn.input, kind: turn.kind });
    this.#publish(live, 'turn.started', {
      turn_id: turn.turn_id,
      input: turn.input,
      kind: turn.kind,
      ...(turn.client_request_id === undefined
        ? {}
        : { client_request_id: turn.client_request_id }),
    });
    const history = [...live.disk.history];
    const added: Message[] = [{ role: 'user', content: turn.input }];
    let stop_reason: TurnStopReason = 'final';
    let final: string | null = null;
    let error: string | undefined;
    let budget_scope: string | undefined;
    try {
      const answer = await Promise.race([
        Promise.resolve(
          this.behaviour({
            session_id: live.id,
            turn_id: turn.turn_id,
            input: turn.input,
            history,
            signal,
            take_steering: () => {
              const texts = live.steering.splice(0);
              for (const text of texts) {
                added.push({ role: 'user', content: text });
                this.#publish(live, 'message.steered', { turn_id: turn.turn_id, text });
              }
              return texts;
            },
            ask_permission: (title) => this.#ask(live, turn.turn_id, title),
          }),
        ),
        new Promise<never>((_resolve, reject) => {
          if (signal.aborted) reject(new Error('aborted'));
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        }),
      ]);
      final = answer;
      if (answer !== null) added.push({ role: 'assistant', content: answer });
    } catch (caught) {
      // a behaviour that throws a BudgetStop ends the turn as a spending limit does
      stop_reason = signal.aborted ? 'aborted' : is_budget_stop(caught) ? 'budget' : 'error';
      error = caught instanceof Error ? caught.message : String(caught);
      if (is_budget_stop(caught) && typeof caught.scope === 'string') budget_scope = caught.scope;
    }
    live.disk.history.push(...added);
    const left = live.steering.splice(0);
    if (left.length > 0 && this.live.has(live.id)) {
      this.#next_id += 1;
      live.queue.unshift({
        turn_id: `t${this.#next_id}`,
        input: left.join('\n\n'),
        kind: 'prompt',
      });
    }
    this.#running -= 1;
    this.#publish(live, 'turn.completed', {
      turn_id: turn.turn_id,
      stop_reason,
      usage: { input_tokens: 0, output_tokens: 0 } as HostEventPayloads['turn.completed']['usage'],
      final,
      turns_used: 1,
      ...(stop_reason === 'error' && error !== undefined ? { error } : {}),
      ...(stop_reason === 'budget' && error !== undefined ? { budget: error } : {}),
      ...(stop_reason === 'budget' && budget_scope !== undefined ? { budget_scope } : {}),
    });
  }

  #ask(live: Live, turn_id: string, title: string): Promise<PermissionOption | 'cancelled'> {
    const can_approve = [...live.listeners].some((entry) => entry.can_approve);
    if (!can_approve) return Promise.resolve('reject_once');
    this.#next_id += 1;
    const request_id = `p${this.#next_id}`;
    const answered = new Promise<PermissionOption | 'cancelled'>((resolve) => {
      this.#pending_permissions.set(request_id, (option) => {
        this.#pending_permissions.delete(request_id);
        this.#publish(live, 'permission.resolved', { turn_id, request_id, option });
        resolve(option);
      });
    });
    this.#publish(live, 'permission.request', {
      turn_id,
      request_id,
      tool_call_id: `call_${request_id}`,
      tool: 'terminal',
      args: {},
      title,
      options: ['allow_once', 'allow_always', 'reject_once', 'reject_always'],
    });
    return answered;
  }

  async interrupt(
    session_id: string,
  ): Promise<{ aborted: boolean; queued: string[]; queued_images: ImagePart[][] }> {
    const live = this.#live(session_id);
    const queued = [...live.steering, ...live.queue.map((turn) => turn.input)];
    live.steering = [];
    live.queue = [];
    return { aborted: await this.abort(session_id), queued, queued_images: queued.map(() => []) };
  }

  async abort(session_id: string): Promise<boolean> {
    const live = this.#live(session_id);
    if (live.run === null) return false;
    live.run.controller.abort();
    return true;
  }

  async steer(session_id: string, text: string): Promise<void> {
    const live = this.#live(session_id);
    if (live.run !== null) live.steering.push(text);
    else this.#enqueue(live, text, 'prompt');
  }

  async follow_up(session_id: string, text: string): Promise<TurnTicket> {
    return this.#enqueue(this.#live(session_id), text, 'follow_up');
  }

  async subscribe(
    session_id: string,
    listener: (event: HostEvent) => void,
    options: { can_approve?: boolean } = {},
  ): Promise<Subscription> {
    const live = this.#live(session_id);
    const entry = { listener, can_approve: options.can_approve === true };
    live.listeners.add(entry);
    return { replayed: 0, truncated: false, unsubscribe: () => live.listeners.delete(entry) };
  }

  async respond_permission(request_id: string, option: PermissionOption): Promise<boolean> {
    const answer = this.#pending_permissions.get(request_id);
    if (answer === undefined) return false;
    answer(option);
    return true;
  }

  async set_approval_mode(session_id: string, mode: ApprovalMode): Promise<void> {
    this.#live(session_id).disk.approval_mode = mode;
  }

  async set_model(): Promise<void> {}

  commands(_session_id?: string): CommandInfo[] {
    return [];
  }

  async run_command(_session_id: string, _name: string, _args?: string): Promise<CommandResult> {
    return { ok: false, output: 'no commands' };
  }

  models() {
    return [];
  }

  tools() {
    return [];
  }

  async rewind_points(session_id: string) {
    this.#live(session_id);
    return [];
  }

  async rewind(session_id: string): Promise<never> {
    this.#live(session_id);
    throw new SessionHostError('unavailable', 'the fake host keeps no checkpoints');
  }

  async idle(session_id: string): Promise<void> {
    const live = this.#live(session_id);
    if (live.run === null && live.queue.length === 0) return;
    await new Promise<void>((resolve) => live.idle.push(resolve));
  }

  async shutdown(): Promise<void> {
    this.#shut = true;
    for (const id of [...this.live.keys()]) await this.close(id);
  }
}

/** A promise with its resolve outside. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
