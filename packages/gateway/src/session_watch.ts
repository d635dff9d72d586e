import type { HostEvent, HostEventPayloads, SessionHost, Subscription } from '@lich/agent';

/** How a turn ended, as the bus needs it. */
export type TurnEnd = HostEventPayloads['turn.completed'];

/** A permission request of a watched session. */
export type PermissionRequest = HostEventPayloads['permission.request'] & { session_id: string };

/** What a watcher reports besides turn ends. */
export interface SessionWatchHooks {
  on_permission_request?: (request: PermissionRequest) => void;
  on_permission_resolved?: (request_id: string) => void;
}

/**
 * Follows one session's events for the bus: which turns ended and how, and which steering
 * texts each turn took in.
 *
 * Contract: `wait_turn(turn_id)` resolves with the turn's `turn.completed` payload whether the
 * event arrives before or after the call (the bus learns the turn id only when `prompt`
 * resolves); `take_steered(turn_id)` lists the texts a turn took in, in order; `close`
 * unsubscribes and rejects the waits still pending.
 */
export class SessionWatch {
  readonly session_id: string;
  readonly #ended = new Map<string, TurnEnd>();
  readonly #waiting = new Map<
    string,
    { resolve: (end: TurnEnd) => void; reject: (error: Error) => void }
  >();
  readonly #steered = new Map<string, string[]>();
  readonly #recent_ends: string[] = [];
  /** Turns the host started itself (no client_request_id), not yet claimed; and who waits. */
  readonly #host_turns: string[] = [];
  #host_turn_waiter: { resolve: (turn_id: string) => void; reject: (error: Error) => void } | null =
    null;
  #subscription: Subscription | null = null;

  private constructor(session_id: string) {
    this.session_id = session_id;
  }

  /** Subscribes to `session_id` (live events only). */
  static async open(
    host: SessionHost,
    session_id: string,
    options: { can_approve: boolean; hooks?: SessionWatchHooks },
  ): Promise<SessionWatch> {
    const watch = new SessionWatch(session_id);
    watch.#subscription = await host.subscribe(
      session_id,
      (event) => watch.#on_event(event, options.hooks),
      { can_approve: options.can_approve },
    );
    return watch;
  }

  wait_turn(turn_id: string): Promise<TurnEnd> {
    const ended = this.#ended.get(turn_id);
    if (ended !== undefined) {
      this.#ended.delete(turn_id);
      return Promise.resolve(ended);
    }
    if (this.#subscription === null)
      return Promise.reject(new Error('the session watch is closed'));
    return new Promise((resolve, reject) => this.#waiting.set(turn_id, { resolve, reject }));
  }

  /**
   * The next turn the host starts by itself (steering left over after a run's last model call
   * becomes one), whether it started already or not.
   */
  next_host_turn(): Promise<string> {
    const started = this.#host_turns.shift();
    if (started !== undefined) return Promise.resolve(started);
    if (this.#subscription === null)
      return Promise.reject(new Error('the session watch is closed'));
    return new Promise((resolve, reject) => {
      this.#host_turn_waiter = { resolve, reject };
    });
  }

  /** True when `turn_id` has ended (of the last few turns). */
  has_ended(turn_id: string): boolean {
    return this.#recent_ends.includes(turn_id);
  }

  /** The steering texts `turn_id` took in, and forgets them. */
  take_steered(turn_id: string): string[] {
    const texts = this.#steered.get(turn_id) ?? [];
    this.#steered.delete(turn_id);
    return texts;
  }

  /** Unsubscribes; waits still pending reject (their turn will never be seen). Idempotent. */
  close(): void {
    this.#subscription?.unsubscribe();
    this.#subscription = null;
    const closed = new Error('the session watch is closed');
    for (const waiter of this.#waiting.values()) waiter.reject(closed);
    this.#waiting.clear();
    this.#host_turn_waiter?.reject(closed);
    this.#host_turn_waiter = null;
  }

  #on_event(event: HostEvent, hooks: SessionWatchHooks | undefined): void {
    switch (event.type) {
      case 'turn.completed': {
        this.#recent_ends.push(event.payload.turn_id);
        if (this.#recent_ends.length > 8) this.#recent_ends.shift();
        const waiter = this.#waiting.get(event.payload.turn_id);
        if (waiter === undefined) {
          this.#ended.set(event.payload.turn_id, event.payload);
          // turns nobody waits for (a follow-up the host started itself) must not pile up
          if (this.#ended.size > 64) this.#ended.delete(this.#ended.keys().next().value ?? '');
        } else {
          this.#waiting.delete(event.payload.turn_id);
          waiter.resolve(event.payload);
        }
        return;
      }
      case 'turn.started': {
        if (event.payload.client_request_id !== undefined) return;
        const waiter = this.#host_turn_waiter;
        this.#host_turn_waiter = null;
        if (waiter !== null) waiter.resolve(event.payload.turn_id);
        else {
          this.#host_turns.push(event.payload.turn_id);
          if (this.#host_turns.length > 8) this.#host_turns.shift();
        }
        return;
      }
      case 'message.steered': {
        const texts = this.#steered.get(event.payload.turn_id) ?? [];
        texts.push(event.payload.text);
        this.#steered.set(event.payload.turn_id, texts);
        return;
      }
      case 'permission.request':
        hooks?.on_permission_request?.({ ...event.payload, session_id: event.session_id });
        return;
      case 'permission.resolved':
        hooks?.on_permission_resolved?.(event.payload.request_id);
        return;
      default:
        return;
    }
  }
}
