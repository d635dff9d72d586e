/**
 * The contract every surface (serve, acp, the TUI, gateways) speaks to: live sessions, prompts,
 * steering, permissions, slash commands, and events with per-session sequence numbers.
 *
 * Types only: the implementation is `create_session_host` (session_host.ts). A surface depends on
 * this interface, never on the class, so tests can stand a fake in for it.
 */
import type {
  AssistantMessage,
  ImagePart,
  Message,
  StopReason,
  ToolPreview,
  Usage,
} from '@lich/core';
import type { RewindOutcome, RewindPoint, RewindRequest } from '../checkpoints/rewind_types.js';
import type { TodoItem } from '../toolbox/todo_list.js';

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

/** A turn-scoped payload names its turn. */
interface TurnScoped {
  turn_id: string;
}

/** The payload of each host event type. */
export interface HostEventPayloads {
  /** The session's facts changed (title, model, approval mode, busy, queue length). */
  'session.info': SessionInfo;
  /** A run started: from `prompt`, or a queued follow-up. */
  'turn.started': TurnScoped & {
    input: string;
    kind: 'prompt' | 'follow_up';
    client_request_id?: string;
  };
  /** A run ended. `usage` is the turn's; `final` its answer (null when none). */
  'turn.completed': TurnScoped & {
    stop_reason: TurnStopReason;
    usage: Usage;
    final: string | null;
    turns_used: number;
    /** Set when `stop_reason` is `error`: the provider's message. */
    error?: string;
    /** With `error`, when there is advice: which key variable to check, whether a server runs… */
    hints?: string[];
    /** Set when `stop_reason` is `budget`: which spending limit stopped the turn, and why. */
    budget?: string;
    /** With `budget`: the limit's scope (`session`, `day`, `sender`, `conversation`). */
    budget_scope?: string;
  };
  /** Answer text, coalesced (about 30 per second per session). */
  'message.delta': TurnScoped & { text: string };
  /** One assistant message is complete (each model call of a run has one). */
  'message.completed': TurnScoped & { message: AssistantMessage };
  /** Reasoning text, coalesced like `message.delta`. */
  'reasoning.delta': TurnScoped & { text: string };
  /** A steering message was taken into the run before the next model call. */
  'message.steered': TurnScoped & { text: string };
  /**
   * The model asked for a tool call. It may still wait for approval (`permission.request`); it
   * runs from `tool.running` on.
   */
  'tool.start': TurnScoped & {
    tool_call_id: string;
    name: string;
    /** The parsed arguments (the raw JSON text when they did not parse). */
    args: unknown;
  };
  /** The call passed its checks (an approval included) and now runs. */
  'tool.running': TurnScoped & { tool_call_id: string; name: string };
  'tool.end': TurnScoped & {
    tool_call_id: string;
    name: string;
    ok: boolean;
    /** What the model sees (clamped). */
    output: string;
    error?: string;
    duration_ms: number;
    /** True when the command ran inside the OS sandbox. */
    sandboxed?: boolean;
  };
  /** The run waits for an answer to this request (`respond_permission`). */
  'permission.request': TurnScoped & {
    request_id: string;
    tool_call_id: string;
    tool: string;
    args: unknown;
    /** One line for a person: `terminal: git push`, `write_file: docs/a.md`. */
    title: string;
    /** What the call would do: the diff of an edit, a new file's first lines, the command. */
    preview?: ToolPreview;
    options: readonly PermissionOption[];
  };
  /** A request was answered (or cancelled by an abort, which counts as a rejection). */
  'permission.resolved': TurnScoped & {
    request_id: string;
    option: PermissionOption | 'cancelled';
  };
  /** Usage after each model call: the call's, and the session's running total. */
  'usage.update': TurnScoped & {
    usage: Usage;
    usage_total: Usage;
    /** The call's cost in dollars; null when its model has no known price. */
    cost_usd?: number | null;
    /** The session's cost so far in dollars; null once a call had no known price. */
    cost_total_usd?: number | null;
    /** Estimated tokens of the history now, and the configured window, when known. */
    context_tokens?: number;
    context_window?: number;
  };
  /** The provider router retried or moved to the next provider. */
  'provider.failover': TurnScoped & {
    kind: 'retry' | 'failover';
    provider: string;
    model: string;
    to_provider?: string;
    to_model?: string;
    attempt?: number;
    delay_ms?: number;
    reason: string;
  };
  compaction: TurnScoped & {
    ok: boolean;
    before_count: number;
    after_count: number;
    error?: string;
  };
  /**
   * A checkpoint of the work dir was taken: before the turn's first change (its prompt can be
   * rewound from now on) or when it ended.
   */
  'checkpoint.created': TurnScoped & {
    checkpoint_id: string;
    kind: 'before_prompt' | 'after_prompt';
    /** The prompt's number in the session, as `rewind` takes it. */
    prompt: number;
  };
  /** The session was rewound (or a rewind redone): a client refetches `history`. */
  'session.rewound': RewindOutcome;
  /** The model wrote the session's task list (`todo_write`): the whole list, in order. */
  'todo.updated': TurnScoped & { items: TodoItem[] };
  /**
   * The model proposed a plan in plan mode (`exit_plan_mode`). It comes right after the
   * `permission.request` it belongs to; answer that request: `allow_once` approves (mode
   * `default`), `allow_always` approves (mode `auto_edit`), a rejection with a `note` sends the
   * user's changes back to the model.
   */
  'plan.proposed': TurnScoped & { request_id: string; tool_call_id: string; plan: string };
  /**
   * A `task` call started a subagent: a child session (`session_id`, null when not recorded) of
   * `parent_session_id`. Its own events are its session's; subscribe to it to follow it.
   */
  'subagent.started': TurnScoped & {
    tool_call_id: string;
    session_id: string | null;
    parent_session_id: string | null;
    description: string;
    subagent_type: string;
  };
  /**
   * What a subagent does, as it does it: a tool call it started (`tool`, `args`), or `tool: null`
   * when it waits for the model again; `tool_count` is how many calls it started so far.
   */
  'subagent.activity': TurnScoped & {
    tool_call_id: string;
    session_id: string | null;
    parent_session_id: string | null;
    tool: string | null;
    args?: unknown;
    tool_count: number;
  };
  /** A subagent ended; its usage is part of this session's from now on. */
  'subagent.completed': TurnScoped & {
    tool_call_id: string;
    session_id: string | null;
    parent_session_id: string | null;
    ok: boolean;
    stopped_reason: string;
    usage: Usage;
  };
  /** Something went wrong outside a turn's normal end (a session file that cannot be written…). */
  error: Partial<TurnScoped> & { message: string; code?: string };
}

/** The type of a host event. */
export type HostEventType = keyof HostEventPayloads;

/** Every host event type, for `initialize`-style discovery. */
export const HOST_EVENT_TYPES: readonly HostEventType[] = [
  'session.info',
  'turn.started',
  'turn.completed',
  'message.delta',
  'message.completed',
  'reasoning.delta',
  'message.steered',
  'tool.start',
  'tool.running',
  'tool.end',
  'permission.request',
  'permission.resolved',
  'usage.update',
  'provider.failover',
  'compaction',
  'checkpoint.created',
  'session.rewound',
  'todo.updated',
  'plan.proposed',
  'subagent.started',
  'subagent.activity',
  'subagent.completed',
  'error',
];

/**
 * One event of one session. `seq` starts at 1 and grows by one per event of that session;
 * `epoch` is one id per host process, so a client can tell a restart from a gap.
 */
export type HostEvent = {
  [K in HostEventType]: {
    session_id: string;
    epoch: string;
    seq: number;
    type: K;
    payload: HostEventPayloads[K];
  };
}[HostEventType];

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
    },
  ): Promise<TurnTicket>;
  /** Aborts the session's in-flight run (its queue stays). Resolves false when none was running. */
  abort(session_id: string): Promise<boolean>;
  /**
   * What a person's Esc means: aborts the run in flight and takes back everything queued behind
   * it (prompts, follow-ups, steering text), oldest first, so nothing starts by itself; the
   * surface puts the texts back into its input.
   */
  interrupt(session_id: string): Promise<{ aborted: boolean; queued: string[] }>;
  steer(session_id: string, text: string): Promise<void>;
  follow_up(session_id: string, text: string): Promise<TurnTicket>;
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
