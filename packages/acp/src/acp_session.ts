import type {
  HostEvent,
  HostEventPayloads,
  PermissionOption,
  SessionHost,
  SessionInfo,
  Subscription,
} from '@lich/agent';
import { error_text } from './acp_error.js';
import type { AcpClientPeer, SessionUpdate } from './acp_sdk.js';
import { permission_answer, permission_request } from './permissions.js';
import { SessionUpdateMapper } from './update_mapping.js';

/** How a turn ended, as the host says it. */
export type TurnEnd = HostEventPayloads['turn.completed'];

/** Ended turns kept per session for a prompt that has not started waiting yet. */
const FINISHED_KEPT = 32;

/** How long a client request of a tool call waits for the call's announcement at most. */
const ANNOUNCE_WAIT_MS = 2_000;

/**
 * One ACP session served by a connection: its host's events become `session/update`s to the
 * editor, and its permission requests `session/request_permission`s.
 *
 * Contract:
 * - updates go out one after the other, in event order (`receive`, `enqueue`); one the client
 *   does not take is logged, never thrown;
 * - a `permission.request` is asked outside that order (later events, an abort, do not wait for
 *   the person); a failed or cancelled question is answered `reject_once`; a
 *   `permission.resolved` (or `cancel_questions`) withdraws the question;
 * - `turn_end(turn_id)` resolves with the turn's end whether it came before or after the call
 *   (the last `FINISHED_KEPT` ends no one waited for are kept); `end_waiters` ends the waits left
 *   as aborted;
 * - `announced(tool_call_id)` resolves once the call's `tool_call` went out, or after
 *   `ANNOUNCE_WAIT_MS`.
 */
export class AcpSession {
  readonly id: string;
  readonly host: SessionHost;
  readonly work_dir: string;
  readonly mapper: SessionUpdateMapper;
  subscription: Subscription | undefined;
  readonly #peer: AcpClientPeer;
  readonly #log: (text: string) => void;
  /** Updates go out one after the other, in event order. */
  #chain: Promise<void> = Promise.resolve();
  /** Turns that ended before anyone waited for them. */
  readonly #finished = new Map<string, TurnEnd>();
  readonly #waiters = new Map<string, (end: TurnEnd) => void>();
  /** Permission requests sent to the client and not yet answered. */
  readonly #asking = new Map<string, AbortController>();
  /** Tool calls the editor was told of (their `tool_call` sent), and who waits for that. */
  readonly #announced = new Map<string, { sent: boolean; wake: (() => void)[] }>();

  constructor(
    host: SessionHost,
    info: SessionInfo,
    options: { peer: AcpClientPeer; log: (text: string) => void },
  ) {
    this.id = info.session_id;
    this.host = host;
    this.work_dir = info.work_dir;
    this.mapper = new SessionUpdateMapper(info.work_dir, {
      mode: info.approval_mode,
      title: info.title,
    });
    this.subscription = undefined;
    this.#peer = options.peer;
    this.#log = options.log;
  }

  /** Takes one event of the host's subscription, after the ones before it. */
  receive(event: HostEvent): void {
    this.#chain = this.#chain
      .then(() => this.#on_event(event))
      .catch((error) => this.#log(`session ${this.id}: ${error_text(error)}`));
  }

  /** Sends `update` after every update already queued for the session. */
  enqueue(update: SessionUpdate): Promise<void> {
    const sent = this.#chain.then(() => this.#send(update));
    this.#chain = sent;
    return sent;
  }

  /** Resolves once `tool_call_id`'s `tool_call` went to the editor (or after a short wait). */
  announced(tool_call_id: string): Promise<void> {
    let entry = this.#announced.get(tool_call_id);
    if (entry?.sent === true) return Promise.resolve();
    if (entry === undefined) {
      entry = { sent: false, wake: [] };
      this.#announced.set(tool_call_id, entry);
    }
    const waiting = entry;
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ANNOUNCE_WAIT_MS);
      waiting.wake.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The end of turn `turn_id`, whether it came already or is still to come. */
  turn_end(turn_id: string): Promise<TurnEnd> {
    const done = this.#finished.get(turn_id);
    if (done !== undefined) {
      this.#finished.delete(turn_id);
      return Promise.resolve(done);
    }
    return new Promise((resolve) => {
      this.#waiters.set(turn_id, (end) => {
        this.#waiters.delete(turn_id);
        resolve(end);
      });
    });
  }

  /** Ends every wait for a turn as aborted (the session was closed). */
  end_waiters(): void {
    for (const waiter of this.#waiters.values()) {
      waiter({
        turn_id: '',
        stop_reason: 'aborted',
        usage: { input_tokens: 0, output_tokens: 0 },
        final: null,
        turns_used: 0,
      });
    }
  }

  /** Withdraws every permission question still open with the client. */
  cancel_questions(): void {
    for (const controller of this.#asking.values()) controller.abort();
  }

  /** Tells the client the session's slash commands, once its id is known to the client. */
  announce_commands(): void {
    const commands = this.host.commands(this.id).map((command) => ({
      name: command.name,
      description: command.description,
      input: command.argument_hint === undefined ? null : { hint: command.argument_hint },
    }));
    // a macrotask later, so the response that names the session goes out first
    const after_response = new Promise<void>((resolve) => setImmediate(resolve));
    const sent = this.#chain
      .then(() => after_response)
      .then(() =>
        this.#send({
          sessionUpdate: 'available_commands_update',
          availableCommands: commands,
        }),
      );
    this.#chain = sent;
  }

  async #send(update: SessionUpdate): Promise<void> {
    try {
      await this.#peer.update({ sessionId: this.id, update });
    } catch (error) {
      this.#log(`session/update for ${this.id} not delivered: ${error_text(error)}`);
    }
    if (update.sessionUpdate === 'tool_call') this.#mark_announced(update.toolCallId);
    else if (
      update.sessionUpdate === 'tool_call_update' &&
      (update.status === 'completed' || update.status === 'failed')
    ) {
      this.#announced.delete(update.toolCallId);
    }
  }

  #mark_announced(tool_call_id: string): void {
    const entry = this.#announced.get(tool_call_id);
    if (entry === undefined) {
      this.#announced.set(tool_call_id, { sent: true, wake: [] });
      return;
    }
    entry.sent = true;
    for (const wake of entry.wake.splice(0)) wake();
  }

  async #on_event(event: HostEvent): Promise<void> {
    for (const update of this.mapper.map(event)) await this.#send(update);
    switch (event.type) {
      case 'permission.request':
        // answered outside the chain: later events (an abort) must not wait for the person
        void this.#ask(event.payload);
        break;
      case 'permission.resolved':
        this.#asking.get(event.payload.request_id)?.abort();
        break;
      case 'turn.completed': {
        const waiter = this.#waiters.get(event.payload.turn_id);
        if (waiter !== undefined) {
          waiter(event.payload);
          break;
        }
        // a turn may end before its prompt waits for it; turns no prompt waits for (a host-started
        // follow-up) are kept only a while
        this.#finished.set(event.payload.turn_id, event.payload);
        if (this.#finished.size > FINISHED_KEPT) {
          const oldest = this.#finished.keys().next().value;
          if (oldest !== undefined) this.#finished.delete(oldest);
        }
        break;
      }
      case 'error':
        this.#log(`session ${this.id}: ${event.payload.message}`);
        break;
      default:
        break;
    }
  }

  async #ask(request: HostEventPayloads['permission.request']): Promise<void> {
    const controller = new AbortController();
    this.#asking.set(request.request_id, controller);
    const display = this.mapper.tool_display(request.tool_call_id, request.tool, request.args);
    let answer: PermissionOption = 'reject_once';
    try {
      const response = await this.#peer.request_permission(
        permission_request(this.id, request, display, this.work_dir),
        controller.signal,
      );
      answer = permission_answer(response, request.options);
    } catch (error) {
      if (!controller.signal.aborted) {
        this.#log(`permission request ${request.request_id} failed: ${error_text(error)}`);
      }
    } finally {
      this.#asking.delete(request.request_id);
    }
    await this.host
      .respond_permission(request.request_id, answer)
      .catch((error) => this.#log(`permission answer not taken: ${error_text(error)}`));
  }
}
