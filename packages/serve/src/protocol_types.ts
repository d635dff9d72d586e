/**
 * The data shapes of the Lich serve protocol, as they travel on the wire. Self-contained on
 * purpose: a desktop app or an editor plugin imports these types without pulling in the agent.
 * The server checks at compile time that the host's event payloads fit these (see `serve_core.ts`);
 * method params are checked at run time by each handler (`method_handlers.ts`).
 */

/** Token counts of one model call, or a sum of them. */
export interface WireUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
}

/** A tool call the model asked for; `arguments` is the raw JSON text the model wrote. */
export interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One assistant message: text, tool calls, reasoning. */
export interface WireAssistantMessage {
  role: 'assistant';
  content: string;
  tool_calls?: WireToolCall[];
  reasoning?: string;
  reasoning_parts?: { text: string; signature?: string; redacted?: string }[];
}

/**
 * A part of a message made of parts: text, or a picture (its bytes as base64 in `data`, its
 * sha256 in `blob` when stored, its media type, and a name to show where it cannot be drawn).
 */
export type WireContentPart =
  | { type: 'text'; text: string }
  | {
      type: 'image';
      media_type: string;
      data?: string;
      blob?: string;
      name?: string;
      width?: number;
      height?: number;
    };

/**
 * A picture sent with `prompt.submit`: its bytes as base64 (standard alphabet, no `data:` prefix),
 * its media type (`image/png`, `image/jpeg`, `image/gif` or `image/webp`, matching the bytes), and
 * a name to show where it cannot be drawn.
 */
export interface WirePromptImage {
  media_type: string;
  data: string;
  name?: string;
}

/** One message of a conversation, as `session.history` returns it. */
export type WireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | WireContentPart[] }
  | WireAssistantMessage
  | {
      role: 'tool';
      tool_call_id: string;
      name?: string;
      content: string | WireContentPart[];
      is_error?: boolean;
    };

/** How a session's tool calls are approved. */
export type WireApprovalMode = 'default' | 'auto_edit' | 'plan' | 'yolo';

/** The answers a person can give to a permission request. */
export type WirePermissionOption = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

/** What a call asking for approval would do. */
export interface WireToolPreview {
  /** `diff` (a unified diff), `new_file` (its first lines), `command` (the whole line), `text`. */
  kind: 'diff' | 'new_file' | 'command' | 'text';
  text: string;
  /** One line: `+3 −1`, `new file, 20 bytes, 3 lines`. */
  summary?: string;
  path?: string;
  /** The file's whole text before and after, when small enough (for a side-by-side view). */
  old_text?: string;
  new_text?: string;
}

/** Why a turn ended. */
export type WireTurnStopReason = 'final' | 'max_turns' | 'budget' | 'aborted' | 'refusal' | 'error';

/** What is known of one session, live or on disk. */
export interface WireSessionInfo {
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
  /** True while the session is held in memory by the server's host. */
  live: boolean;
  /** True while a run is in flight. */
  busy: boolean;
  /** Prompts and follow-ups waiting for the current run. */
  queued: number;
  approval_mode: WireApprovalMode;
  usage_total: WireUsage;
  /** How commands run: `bwrap`, `sandbox-exec`, `none` or `off`; absent until known. */
  sandbox?: string;
  /** The session whose `task` tool started this one (a subagent); absent otherwise. */
  parent_session_id?: string;
}

interface TurnScoped {
  turn_id: string;
}

/** What a rewind puts back: the conversation and the files, or one of them. */
export type WireRewindScope = 'all' | 'files' | 'conversation';

/** How a rewind treats a file someone else changed since the agent left it. */
export type WireRewindConflictChoice = 'stop' | 'overwrite' | 'keep';

/** One changed path between two checkpoints. */
export interface WireFileChange {
  path: string;
  status: 'added' | 'deleted' | 'modified' | 'renamed' | 'mode';
  kind: 'file' | 'link' | 'dir' | 'not_kept';
  /** For `renamed`: the old path. */
  from?: string;
  added_lines?: number;
  removed_lines?: number;
  binary?: boolean;
  mode_before?: number;
  mode_after?: number;
}

/** One prompt of a session, as a rewind lists it. */
export interface WireRewindPoint {
  /** 1-based: what `session.rewind` takes. */
  prompt: number;
  run: number;
  input: string;
  /** ISO 8601. */
  at: string;
  /** Its files can be rewound (a checkpoint from before it is kept). */
  files: boolean;
  /** Its conversation can be rewound. */
  conversation: boolean;
  /** The files it changed. */
  changes: WireFileChange[];
  added_lines: number;
  removed_lines: number;
}

/** What a rewind did (or, for a dry run, would do). */
export interface WireRewindOutcome {
  status: 'rewound' | 'planned' | 'conflicts' | 'nothing';
  prompt?: number;
  /** The prompt's text: a client may put it back in its input. */
  input?: string;
  redo: boolean;
  files?: {
    checkpoint: string;
    restored: {
      path: string;
      action: 'create' | 'update' | 'delete' | 'mode';
      kind: 'file' | 'link' | 'dir' | 'not_kept';
    }[];
    /** Changed by someone else since the agent left them: a rewind with `stop` changed nothing. */
    conflicts: string[];
    skipped: {
      path: string;
      reason: 'not_kept' | 'excluded' | 'conflict' | 'not_empty' | 'failed';
      message?: string;
    }[];
    /** Folders left out of checkpoints (dependency folders): not restored. */
    not_restored: string[];
    redo_checkpoint?: string;
  };
  conversation?: { removed: number; restored: number };
  /** A few lines for a person. */
  summary: string;
}

/** The payload of each event type (the host's event types, unchanged). */
export interface EventPayloads {
  'session.info': WireSessionInfo;
  'turn.started': TurnScoped & {
    input: string;
    kind: 'prompt' | 'follow_up';
    client_request_id?: string;
  };
  'turn.completed': TurnScoped & {
    stop_reason: WireTurnStopReason;
    usage: WireUsage;
    final: string | null;
    turns_used: number;
    error?: string;
    /** With `error`, when there is advice: which key variable to check, whether a server runs… */
    hints?: string[];
    /** Set when `stop_reason` is `budget`: which spending limit stopped the turn, and why. */
    budget?: string;
    /** With `budget`: the limit's scope (`session`, `day`, `sender`, `conversation`). */
    budget_scope?: string;
  };
  'message.delta': TurnScoped & { text: string };
  'message.completed': TurnScoped & { message: WireAssistantMessage };
  'reasoning.delta': TurnScoped & { text: string };
  'message.steered': TurnScoped & { text: string };
  'tool.start': TurnScoped & { tool_call_id: string; name: string; args: unknown };
  'tool.running': TurnScoped & { tool_call_id: string; name: string };
  'tool.end': TurnScoped & {
    tool_call_id: string;
    name: string;
    ok: boolean;
    output: string;
    error?: string;
    duration_ms: number;
    sandboxed?: boolean;
  };
  'permission.request': TurnScoped & {
    request_id: string;
    tool_call_id: string;
    tool: string;
    args: unknown;
    title: string;
    preview?: WireToolPreview;
    options: readonly WirePermissionOption[];
  };
  'permission.resolved': TurnScoped & {
    request_id: string;
    option: WirePermissionOption | 'cancelled';
  };
  'usage.update': TurnScoped & {
    usage: WireUsage;
    usage_total: WireUsage;
    /** The call's cost in dollars; null when its model has no known price. */
    cost_usd?: number | null;
    /** The session's cost so far in dollars; null once a call had no known price. */
    cost_total_usd?: number | null;
    context_tokens?: number;
    context_window?: number;
    /** Who answered the call, and how long it took, when known. */
    provider?: string;
    model?: string;
    duration_ms?: number;
  };
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
  'budget.notice': TurnScoped & {
    kind: 'spending' | 'turns';
    level: 'warning' | 'stop';
    message: string;
    scope?: string;
    max_turns?: number;
    grace?: boolean;
  };
  compaction: TurnScoped & {
    ok: boolean;
    before_count: number;
    after_count: number;
    error?: string;
  };
  'checkpoint.created': TurnScoped & {
    checkpoint_id: string;
    kind: 'before_prompt' | 'after_prompt';
    prompt: number;
  };
  'session.rewound': WireRewindOutcome;
  /** The model wrote the session's task list (`todo_write`): the whole list, in order. */
  'todo.updated': TurnScoped & {
    items: { content: string; status: 'pending' | 'in_progress' | 'completed' }[];
  };
  /**
   * A plan proposed in plan mode (`exit_plan_mode`), after its `permission.request`: answer that
   * request with `permission.respond` (`allow_once`: approve, mode default; `allow_always`:
   * approve, mode auto_edit; `reject_once` with a `note`: the changes wanted).
   */
  'plan.proposed': TurnScoped & { request_id: string; tool_call_id: string; plan: string };
  /** A `task` call started a subagent: a child session of `parent_session_id`. */
  'subagent.started': TurnScoped & {
    /** 1 for a child of this session's run, 2 for a child of that child… */
    depth: number;
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
    depth: number;
    tool_call_id: string;
    session_id: string | null;
    parent_session_id: string | null;
    tool: string | null;
    args?: unknown;
    tool_count: number;
  };
  /** A subagent ended; its usage is counted in the parent session's. */
  'subagent.completed': TurnScoped & {
    /** Its usage and dollars include its own children's: totals count depth 1 only. */
    depth: number;
    tool_call_id: string;
    session_id: string | null;
    parent_session_id: string | null;
    ok: boolean;
    stopped_reason: string;
    usage: WireUsage;
    /**
     * What the child's model calls cost in dollars, its own children's included; null when one
     * had no known price.
     */
    cost_usd: number | null;
  };
  error: Partial<TurnScoped> & { message: string; code?: string };
}

/** An event type. */
export type EventType = keyof EventPayloads;

/**
 * The params of the `event` notification: one event of one session. `seq` starts at 1 and grows
 * by one per event of that session; `epoch` changes when the server process restarts.
 */
export type EventParams = {
  [K in EventType]: {
    session_id: string;
    epoch: string;
    seq: number;
    type: K;
    payload: EventPayloads[K];
  };
}[EventType];

/** A slash command. */
export interface WireCommandInfo {
  /** Without the slash. */
  name: string;
  description: string;
  argument_hint?: string;
}

/** A model a session can switch to. */
export interface WireModelInfo {
  provider: string;
  model: string;
  default: boolean;
}

/** A tool the model is offered. */
export interface WireToolInfo {
  name: string;
  description: string;
}
