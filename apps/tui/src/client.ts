/**
 * The one interface the TUI talks to the agent through. Two implementations: in process over a
 * `SessionHost` (`create_host_client`) and over `lich serve --stdio` (`create_serve_client`).
 */
import type {
  ApprovalMode,
  CommandInfo,
  CommandResult,
  HostEvent,
  PermissionOption,
  RewindOutcome,
  RewindPoint,
  RewindRequest,
  SessionInfo,
  SubscribeOptions,
  Subscription,
  TurnTicket,
} from '@lich/agent';
import type { Message } from '@lich/core';

/** How the connection to the backend is doing (always `up` in process). */
export type ConnectionState =
  | { kind: 'up' }
  /** The backend went away; the client is starting it again. */
  | { kind: 'lost'; reason: string }
  /** The backend could not be brought back; the TUI cannot go on. */
  | { kind: 'failed'; reason: string };

/**
 * What the TUI needs of a session host.
 *
 * Contract:
 * - the methods mirror `SessionHost`'s and reject as it does (an unknown session, a host shutting
 *   down); errors of a run are events, not rejections;
 * - `epoch` is the backend's current one: it changes when a supervised backend is restarted,
 *   and `on_connection` reports `lost` before and `up` after, so the TUI loads its session again
 *   and resubscribes with `after_seq` (and is answered `truncated`);
 * - `close` ends the backend this client started (the in-process host, or the child process) and
 *   is idempotent.
 */
export interface TuiClient {
  readonly epoch: string;
  /** A short word for the status line: `local`, or `serve` for `--connect`. */
  readonly mode: 'local' | 'serve';
  create(options?: { title?: string; approval_mode?: ApprovalMode }): Promise<SessionInfo>;
  load(session_id: string): Promise<SessionInfo>;
  list(): Promise<SessionInfo[]>;
  get(session_id: string): Promise<SessionInfo>;
  history(session_id: string): Promise<Message[]>;
  prompt(
    session_id: string,
    input: string,
    options?: { client_request_id?: string; attach_mentions?: boolean },
  ): Promise<TurnTicket>;
  follow_up(
    session_id: string,
    text: string,
    options?: { attach_mentions?: boolean },
  ): Promise<TurnTicket>;
  steer(session_id: string, text: string): Promise<void>;
  abort(session_id: string): Promise<boolean>;
  /** Aborts the run and takes back what waits behind it (texts, oldest first). */
  interrupt(session_id: string): Promise<{ aborted: boolean; queued: string[] }>;
  subscribe(
    session_id: string,
    listener: (event: HostEvent) => void,
    options?: SubscribeOptions,
  ): Promise<Subscription>;
  /** Answers a permission request; `note` (with a rejection) goes to the model. */
  respond_permission(request_id: string, option: PermissionOption, note?: string): Promise<boolean>;
  set_approval_mode(session_id: string, mode: ApprovalMode): Promise<void>;
  commands(session_id: string): Promise<CommandInfo[]>;
  run_command(session_id: string, name: string, args?: string): Promise<CommandResult>;
  /** The session's prompts as a rewind lists them. */
  rewind_points(session_id: string): Promise<RewindPoint[]>;
  /** Rewinds the session (or redoes the last rewind); publishes `session.rewound`. */
  rewind(session_id: string, request: RewindRequest): Promise<RewindOutcome>;
  /** Reports connection changes; returns a function that stops the reports. */
  on_connection(listener: (state: ConnectionState) => void): () => void;
  close(): Promise<void>;
}
