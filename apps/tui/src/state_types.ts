/**
 * The shapes of the TUI's state: finished blocks (written once into the terminal's scrollback),
 * the live turn (re-rendered as it grows), pending permission requests, queued input and the
 * status line's facts. Plain data, no functions, so a state can be compared and logged.
 */
import type {
  HostEvent,
  PermissionOption,
  RewindPoint,
  RewindScope,
  SessionInfo,
  TurnStopReason,
} from '@lich/agent';
import type { TodoItem } from '@lich/agent/todo_list';
import type { Message, ToolPreview, Usage } from '@lich/core';

/**
 * A subagent as the screen shows it: a nested block under the `task` call that started it, one
 * line collapsed (what it is, what it does now, its tool count and clock), its calls expanded.
 */
export interface SubagentView {
  /** The parent's `task` call this child belongs to. */
  tool_call_id: string;
  /** The child session, null when it is not recorded. */
  session_id: string | null;
  description: string;
  subagent_type: string;
  /** When it started (ms since the epoch). */
  started_at: number;
  /** The tool call it runs now, or null while it waits for the model. */
  current: { tool: string; args: unknown } | null;
  /** How many tool calls it started. */
  tool_count: number;
  /** Its last tool calls, oldest first (at most `SUBAGENT_CALLS_KEPT`). */
  calls: { tool: string; args: unknown }[];
  /** How it ended; absent while it runs. */
  ended?: { ok: boolean; stopped_reason: string; duration_ms: number };
  /** What its `task` call returned (its report, or why it failed), once that call ended. */
  report?: string;
}

/** One tool call as the screen shows it: running (no `ok` yet) or finished. */
export interface ToolView {
  tool_call_id: string;
  name: string;
  args: unknown;
  /**
   * When the call started (ms since the epoch), for the running spinner's clock: when the model
   * asked for it, then again when it passed approval and began to run (`tool.running`).
   */
  started_at: number;
  /** Whether the call got past its checks and runs (false while it waits for approval). */
  running?: boolean;
  ok?: boolean;
  output?: string;
  error?: string;
  duration_ms?: number;
  sandboxed?: boolean;
  /** The call never finished: its turn ended (an abort) or its events were lost. */
  interrupted?: boolean;
  /** A `task` call's subagent, once it started. */
  subagent?: SubagentView;
}

/** A finished piece of the transcript. `id` is unique within a state's lifetime. */
export type Block =
  | { kind: 'user'; id: number; text: string; via: 'prompt' | 'follow_up' | 'steer' }
  /** A finished piece of an answer, in markdown, cut at a safe point. */
  | { kind: 'answer'; id: number; text: string }
  /** Reasoning, shown in full (`expanded`) or as its first line. */
  | { kind: 'reasoning'; id: number; text: string; expanded: boolean }
  | { kind: 'tool'; id: number; tool: ToolView }
  | { kind: 'notice'; id: number; level: 'info' | 'warn' | 'error'; text: string }
  /** A slash command as typed (`args` its words after the name) and what it answered. */
  | { kind: 'command'; id: number; name: string; args?: string; ok: boolean; output: string }
  /** A turn that ended otherwise than with an answer. */
  | {
      kind: 'turn_end';
      id: number;
      stop_reason: TurnStopReason;
      error?: string;
      /** Advice on the error, as the CLI prints it (C44). */
      hints?: string[];
    }
  /** Something collapsed before (a diff, reasoning), printed in full on request. */
  | { kind: 'expanded'; id: number; title: string; text: string; diff: boolean }
  /** A checkpoint was taken before prompt `prompt` changed files: it can be rewound. */
  | { kind: 'checkpoint'; id: number; prompt: number };

/**
 * `/rewind` on screen: first the prompt to go back to, then what to restore, then (when someone
 * else changed files the rewind would change) whether to overwrite them.
 */
export interface RewindView {
  points: readonly RewindPoint[];
  /** The highlighted prompt (an index into `points`). */
  selected: number;
  step: 'prompt' | 'scope' | 'conflicts';
  /** What the chosen prompt can have restored, and the highlighted one. */
  scopes: readonly RewindScope[];
  scope: number;
  /** The paths in conflict, at the `conflicts` step. */
  conflicts: readonly string[];
  /** Waiting for the host's answer. */
  working: boolean;
}

/** The run in flight, as far as this client has seen it. */
export interface LiveTurn {
  turn_id: string;
  started_at: number;
  /** Answer text not yet moved into a block (the tail after the last safe split). */
  text: string;
  /** All answer text of the current model message, flushed or not (to reconcile on completion). */
  message_text: string;
  /** Reasoning not yet moved into a block. */
  reasoning: string;
  /** Whether this message streamed any reasoning. */
  message_reasoned: boolean;
  /** Whether the turn showed any answer text. */
  answered: boolean;
  /** Tool calls started and not finished, in start order. */
  tools: ToolView[];
  /** Subagents of this turn whose `task` call has not finished, in start order. */
  subagents: SubagentView[];
  /** Subagents of this turn whose `task` call finished: what Ctrl+O prints in full. */
  finished_subagents: SubagentView[];
}

/** A permission request waiting for an answer. */
export interface PermissionView {
  request_id: string;
  turn_id: string;
  tool_call_id: string;
  tool: string;
  title: string;
  args: unknown;
  /** What the call would do (a diff, a new file's first lines, the command). */
  preview?: ToolPreview;
  options: readonly PermissionOption[];
  /** When the request reached this client (ms since the epoch). */
  shown_at: number;
}

/** What the status line shows besides the session's own facts. */
export interface StatusView {
  usage_total: Usage;
  /** The session's cost in dollars as `usage.update` last said; null: unknown; absent: not told. */
  cost_total_usd?: number | null;
  context_tokens?: number;
  context_window?: number;
  retries: number;
  failovers: number;
  /** The last retry or failover, in a few words. */
  last_provider_note: string | null;
  /** Whether the last command ran in the OS sandbox; null before any did. */
  sandboxed: boolean | null;
}

/** The whole state of the TUI's transcript and status. */
export interface TuiState {
  session: SessionInfo | null;
  /** The epoch and seq of the last host event applied: where a resubscription resumes. */
  epoch: string | null;
  last_seq: number | null;
  /** An event was missed (a seq gap, another epoch): the client should resubscribe. */
  needs_resync: boolean;
  blocks: Block[];
  /** Grows at each `/clear`: the screen starts a new transcript (scrollback keeps the old). */
  generation: number;
  next_id: number;
  turn: LiveTurn | null;
  permissions: PermissionView[];
  /** Follow-ups sent while a run was in flight, until their turn starts. */
  queued: { text: string; client_request_id: string }[];
  /** Steering text sent, until the run takes it. */
  steering: string[];
  status: StatusView;
  /** Whether reasoning is shown in full (Ctrl+T). */
  reasoning_expanded: boolean;
  /** Whether running subagents show their calls (Ctrl+O while any runs); false again at turn end. */
  subagents_expanded: boolean;
  /** The last thing shown collapsed that Ctrl+O can print in full. */
  expandable: { title: string; text: string; diff: boolean } | null;
  /**
   * `--resume` without an id: the sessions to choose from (those a person started; subagents'
   * sessions are counted under their parent, in `subagents` by session id), and the one
   * highlighted.
   */
  picker: {
    sessions: readonly SessionInfo[];
    selected: number;
    subagents?: Readonly<Record<string, number>>;
  } | null;
  /** The person is leaving: the live region, prompt and status line are taken off the screen. */
  leaving: boolean;
  /** `/rewind` on screen, or null. */
  rewind: RewindView | null;
  /** Text to put in the input (a rewound prompt), until the screen takes it. */
  draft: string | null;
  /** The session's task list (`todo_write`), shown as a checklist while any item is open. */
  todos: readonly TodoItem[];
}

/** What changes the state: a host event, or something the person or the client did. */
export type TuiAction =
  | { type: 'host'; event: HostEvent; at: number }
  /** A session was opened (new, resumed, or after `/clear`): its history becomes blocks. */
  | { type: 'session_opened'; info: SessionInfo; epoch: string; history: readonly Message[] }
  /**
   * The client subscribed again after losing the stream. `truncated`: the host no longer held
   * the missed events; `history` is the session's conversation, fetched again.
   */
  | {
      type: 'resynced';
      epoch: string;
      truncated: boolean;
      info?: SessionInfo;
      history?: readonly Message[];
      at: number;
    }
  | { type: 'notice'; level: 'info' | 'warn' | 'error'; text: string }
  | { type: 'command_output'; name: string; args?: string; ok: boolean; output: string }
  | { type: 'queued'; text: string; client_request_id: string }
  /** A queued follow-up was refused: it leaves the queue. */
  | { type: 'unqueued'; client_request_id: string }
  /** An interrupt took back everything queued and steered: none of it waits any more. */
  | { type: 'queue_taken' }
  | { type: 'steer_sent'; text: string }
  | { type: 'clear' }
  | { type: 'toggle_reasoning' }
  | { type: 'expand' }
  | { type: 'picker_open'; sessions: readonly SessionInfo[] }
  /** Moves the highlight by `by` rows (clamped). */
  | { type: 'picker_move'; by: number }
  | { type: 'picker_close' }
  | { type: 'rewind_open'; points: readonly RewindPoint[] }
  /** Moves the highlight of the current rewind step by `by` rows (clamped). */
  | { type: 'rewind_move'; by: number }
  /** The prompt is chosen: on to what to restore. */
  | { type: 'rewind_choose' }
  /** From what to restore back to the prompts. */
  | { type: 'rewind_back' }
  | { type: 'rewind_working' }
  | { type: 'rewind_conflicts'; conflicts: readonly string[] }
  | { type: 'rewind_close' }
  /**
   * The conversation was rewound: the screen starts a new transcript from `history` (the
   * scrollback keeps the old one), with `notice` under it and `draft` put back in the input.
   */
  | { type: 'history_replaced'; history: readonly Message[]; notice: string; draft: string | null }
  | { type: 'draft_taken' }
  | { type: 'leave' };
