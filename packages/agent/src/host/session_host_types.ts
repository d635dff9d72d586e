/**
 * The contract every surface (serve, acp, the TUI, gateways) speaks to: live sessions, prompts,
 * steering, permissions, slash commands, and events with per-session sequence numbers.
 *
 * Types only: the implementation is `create_session_host` (session_host.ts). A surface depends on
 * this interface, never on the class, so tests can stand a fake in for it.
 */
import type { AgentListener, ImagePart, Message, StopReason, Usage } from '@lich/core';
import type { RouterEvent } from '@lich/providers';
import type { RewindOutcome, RewindPoint, RewindRequest } from '../checkpoints/rewind_types.js';

/** How the session's tool calls are approved (see `PermissionPolicy`). */
export type ApprovalMode = 'default' | 'auto_edit' | 'plan' | 'yolo';

/** The answers a person can give to a permission request. */
export type PermissionOption = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

/** Every `PermissionOption`, in the order a surface offers them. */
export const PERMISSION_OPTIONS: readonly PermissionOption[] = [
  'allow_once',
  'allow_always',
  'reject_once',
  'reject_always',
];

/**
 * Why a turn ended, as every surface reports it: core's `StopReason` — `final` (an answer),
 * `max_turns` (the turn budget ran out), `budget` (a spending limit), `aborted`, `refusal` (the
 * provider refused: finish reason `content_filter`), `error` (the model call failed).
 */
export type TurnStopReason = StopReason;

/**
 * Hears one turn's run from inside the process that prompted it (a surface whose own format is
 * built from the loop's events: `lich "task" --output-format stream-json`). Not for clients of
 * `lich serve`: they have the session's events. Each listener is called synchronously, before the
 * session's event for the same moment; a throwing one is ignored.
 */
export interface RunObserver {
  /** Hears the run's loop events, as `AgentRunOptions.on_event`. */
  on_event?: AgentListener;
  /** Hears the provider router's retries and failovers of the run. */
  on_provider_event?: (event: RouterEvent) => void;
  /**
   * Hears what the run failed with, when it threw (`turn.completed` then says `error` with its
   * message): a surface that tells a bad config from a failed model call by it.
   */
  on_error?: (error: unknown) => void;
}

/** What is known of one session, live or on disk. */
export interface SessionInfo {
  session_id: string;
  title: string;
  /** The session file, or null when the session is not recorded. */
  path: string | null;
  work_dir: string;
  model: string;
  provider: string;
  /** ISO 8601. */
  created: string;
  /** ISO 8601. */
  updated: string;
  /** True while the session is held in memory by this host. */
  live: boolean;
  /** True while a run is in flight. */
  busy: boolean;
  /** Follow-ups and prompts waiting for the current run. */
  queued: number;
  approval_mode: ApprovalMode;
  /** The session's summed usage so far. */
  usage_total: Usage;
  /**
   * How commands run here: `bwrap` or `sandbox-exec` (sandboxed), `none` (no sandbox can start),
   * `off` (`sandbox.mode: off`). Absent until the host has looked; a `session.info` follows then.
   */
  sandbox?: string;
  /**
   * The session whose `task` tool started this one (a subagent); absent for a session a person
   * started. A list shows children beneath their parent (`nest_sessions` of `@lich/session`).
   */
  parent_session_id?: string;
}

import type { HostEvent } from './host_event_types.js';

export {
  HOST_EVENT_TYPES,
  type HostEvent,
  type HostEventPayloads,
  type HostEventType,
} from './host_event_types.js';

/** How a subscriber joins a session's stream. */
export interface SubscribeOptions {
  /**
   * Replay the held events after this seq, then go live. Absent: live only, from the next event.
   */
  after_seq?: number;
  /** The epoch the client saw last; another epoch means a restart, answered `truncated`. */
  epoch?: string;
  /**
   * This subscriber answers permission requests. While no subscriber of a session can approve
   * (and the host has no `approver`), `ask` means deny.
   */
  can_approve?: boolean;
}

/** A live subscription. */
export interface Subscription {
  /** How many held events were replayed to the listener before this resolved. */
  replayed: number;
  /**
   * True when the subscriber asked for events the host no longer holds (the ring moved past them,
   * or `epoch` is another process's): nothing was replayed and the client must refetch `history`.
   */
  truncated: boolean;
  /** Stops delivery. Idempotent. */
  unsubscribe(): void;
}

/** What `prompt` and `follow_up` answer at once. */
export interface TurnTicket {
  turn_id: string;
  /** True when the session was busy and the turn waits in its queue. */
  queued: boolean;
}

/** A slash command, as every surface lists it. */
export interface CommandInfo {
  /** Without the slash: `clear`, `compact`, `model`. */
  name: string;
  description: string;
  /** A hint for the argument, e.g. `<model>`; absent when it takes none. */
  argument_hint?: string;
}

/** What running a slash command produced. */
export interface CommandResult {
  ok: boolean;
  /** Text for the person. */
  output: string;
  /**
   * A prompt the command made (a custom command's template, filled in): the surface sends it to
   * the model as the person's message, as if typed.
   */
  prompt?: string;
  /**
   * The model that prompt runs on, for that turn only (a custom command's `model:`; `model` or
   * `provider/model`, one the config serves). A `SessionHost` applies it itself to the next
   * `prompt` of the session with exactly that text; other surfaces pass it to their run.
   */
  model?: string;
}

/** A model the host can switch a session to. */
export interface ModelInfo {
  provider: string;
  model: string;
  /** True for the session default (the chain's first). */
  default: boolean;
}

/** A tool the model is offered. */
export interface ToolInfo {
  name: string;
  description: string;
}

/**
 * Live sessions over one Agent.
 *
 * Contract:
 * - at most one run per session is in flight; runs of different sessions proceed in parallel;
 * - `prompt` resolves with a `turn_id` at once; a prompt to a busy session is queued (FIFO,
 *   `queued: true`) and runs when the current run ends, never interleaved;
 * - `steer` text goes into the current run as a user message before its next model call (or, with
 *   no run in flight, becomes a prompt);
 * - every event of a session carries the next `seq`; `subscribe` replays what the subscriber
 *   missed from a bounded ring, or answers `truncated` (never a silent gap);
 * - each session records into its session file as `Agent.run` does; decisions on permissions are
 *   recorded too;
 * - methods naming a session the host does not know reject with `SessionHostError` code
 *   `unknown_session`; errors of a run are events (`turn.completed` with `stop_reason: 'error'`),
 *   not rejections.
 */
export interface SessionHost {
  /** One id per host process. */
  readonly epoch: string;
  /** Opens a new live session (a new session file). */
  create(options?: { title?: string; approval_mode?: ApprovalMode }): Promise<SessionInfo>;
  /** Makes an existing session file live, its history rebuilt (a no-op when already live). */
  load(session_id: string): Promise<SessionInfo>;
  /** The sessions of the work dir, newest first: live ones and those on disk. */
  list(): Promise<SessionInfo[]>;
  get(session_id: string): Promise<SessionInfo>;
  /** The session's conversation (what the next run is seeded with). */
  history(session_id: string): Promise<Message[]>;
  /** Aborts its run, drops its queue, and releases it from memory (the file stays). */
  close(session_id: string): Promise<void>;
  /** `close`, then deletes its file. */
  delete(session_id: string): Promise<void>;
  set_title(session_id: string, title: string): Promise<void>;
  /**
   * Queues a prompt. `budget_scopes` names the sender and the conversation a gateway runs it for,
   * so `budget.sender_day_usd` and `budget.conversation_usd` apply.
   */
  prompt(
    session_id: string,
    input: string,
    options?: {
      client_request_id?: string;
      /** Attach the files the text names as `@path` (a person typed it; not for bots). */
      attach_mentions?: boolean;
      budget_scopes?: { sender?: string; conversation?: string };
      /**
       * Pictures sent with the text (the run's user message is then text and pictures); with
       * pictures the text may be empty. Each must hold its bytes in `data`: the surface checks
       * them (`image_from_base64`) and the provider scales them when sent.
       */
      images?: readonly ImagePart[];
      /** Hears this turn's run in-process (`RunObserver`). */
      observer?: RunObserver;
    },
  ): Promise<TurnTicket>;
  /** Aborts the session's in-flight run (its queue stays). Resolves false when none was running. */
  abort(session_id: string): Promise<boolean>;
  /**
   * What a person's Esc means: aborts the run in flight and takes back everything queued behind
   * it (prompts, follow-ups, steering text), oldest first, so nothing starts by itself; the
   * surface puts the texts (and the pictures sent with them) back into its input.
   */
  interrupt(session_id: string): Promise<{
    aborted: boolean;
    queued: string[];
    /** The pictures sent with each of `queued` (`queued_images[i]` with `queued[i]`; often none). */
    queued_images: ImagePart[][];
  }>;
  steer(session_id: string, text: string): Promise<void>;
  follow_up(
    session_id: string,
    text: string,
    options?: { attach_mentions?: boolean },
  ): Promise<TurnTicket>;
  subscribe(
    session_id: string,
    listener: (event: HostEvent) => void,
    options?: SubscribeOptions,
  ): Promise<Subscription>;
  /**
   * Answers a pending `permission.request`. `persist: true` with `allow_always` also writes the
   * rule to the project config; `note` with a rejection goes to the model with the refusal.
   * Resolves false when the request is unknown or already answered.
   */
  respond_permission(
    request_id: string,
    option: PermissionOption,
    options?: { persist?: boolean; note?: string },
  ): Promise<boolean>;
  set_approval_mode(session_id: string, mode: ApprovalMode): Promise<void>;
  /** Switches the session's model: `model` or `provider/model`. */
  set_model(session_id: string, model: string): Promise<void>;
  commands(session_id?: string): CommandInfo[];
  run_command(session_id: string, name: string, args?: string): Promise<CommandResult>;
  models(): ModelInfo[];
  tools(): ToolInfo[];
  /**
   * The session's prompts, oldest first, with the files each changed (+/− lines) and whether its
   * files and conversation can be rewound.
   */
  rewind_points(session_id: string): Promise<RewindPoint[]>;
  /**
   * Rewinds the session to before a prompt: the conversation and the files (as checkpoints hold
   * them), or one of them; or redoes the last rewind. A file someone else changed since the agent
   * left it stops the rewind (`status: 'conflicts'`) unless `on_conflict` says otherwise.
   * Publishes `session.rewound`. Rejects with `busy` while a run is in flight, `invalid_argument`
   * for a prompt it does not have, `unavailable` when the session is not recorded or a checkpoint
   * was pruned.
   */
  rewind(session_id: string, request: RewindRequest): Promise<RewindOutcome>;
  /** Resolves when the session has no run in flight and nothing queued. */
  idle(session_id: string): Promise<void>;
  /**
   * Stops taking prompts, waits for in-flight runs up to `deadline_ms` (then aborts them), closes
   * every session and the agent. Idempotent.
   */
  shutdown(options?: { deadline_ms?: number }): Promise<void>;
}
