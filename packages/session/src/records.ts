/**
 * The records of a session transcript: one JSON object per line of an append-only JSONL file.
 * Every record carries the format version `v` first and its `type` second, so a reader can tell a
 * newer file from a corrupt one and a listing can find records without parsing every line.
 */
import type { Message, StoppedReason, Usage } from '@lich/core';

/** The format version this package writes and reads. A record with a larger `v` is refused. */
export const SESSION_FORMAT_VERSION = 1;

/** Fields every record has. */
export interface RecordBase {
  /** The format version the record was written in. */
  v: number;
  /** When the record was written, as an ISO 8601 timestamp. */
  at: string;
}

/** The first record of every session file. */
export interface SessionStartRecord extends RecordBase {
  type: 'session_start';
  id: string;
  /** When the session was created (ISO 8601); the same instant as `at`. */
  created: string;
  work_dir: string;
  model: string;
  lich_version: string;
  /** The session whose `task` tool started this one (a subagent), when it was started so. */
  parent_session_id?: string;
}

/**
 * A run of the loop began. The seeded messages the session does not hold yet follow as `message`
 * records with `source: 'seed'`.
 */
export interface RunStartRecord extends RecordBase {
  type: 'run_start';
  /** The 1-based number of this run in the session. */
  run: number;
  max_turns: number;
  /** How many messages the loop was seeded with (system prompt applied). */
  seeded_count: number;
  /**
   * How many messages of the session's conversation the seed starts with unchanged. A reader
   * truncates the conversation to this length before applying the seeded messages that follow.
   */
  kept: number;
  /** The last user message of the seed, on one line, clamped; `''` if none. */
  input: string;
  /**
   * The client's id of the prompt that started the run, when it gave one (a gateway's message, a
   * `serve` client's request): a later run with the same id is a retry of this one.
   */
  request_id?: string;
}

/**
 * Where a message record came from. `steer` is a user message put into a run in flight;
 * `sync` repairs a view that drifted from the loop's history.
 */
export type MessageSource = 'seed' | 'llm' | 'tool' | 'steer' | 'sync';

/** One message of the conversation, placed at `index` of the loop's history. */
export interface MessageRecord extends RecordBase {
  type: 'message';
  run: number;
  /** The 0-based position of the message in the loop's history when it was appended. */
  index: number;
  source: MessageSource;
  message: Message;
  /** The turn of the model call or tool call that produced the message. */
  turn?: number;
  /** Token usage of the model call (for `source: 'llm'`). */
  usage?: Usage;
  /** What the model call cost in dollars; null when the model has no known price. */
  cost_usd?: number | null;
  finish_reason?: string;
  provider?: string;
  model?: string;
  duration_ms?: number;
  /** Whether the tool call succeeded (for `source: 'tool'`). */
  tool_ok?: boolean;
}

/** The turn budget ran out while the model was still calling tools. */
export interface BudgetExhaustedRecord extends RecordBase {
  type: 'budget_exhausted';
  run: number;
  turns_used: number;
  max_turns: number;
  grace: boolean;
}

/**
 * A compression finished. When `ok`, the messages at `[from, to)` of the conversation were
 * replaced by `summary_message`; the replaced messages stay earlier in the file, where `replaced`
 * says how many there were. When not `ok`, the conversation is unchanged and `error` says why.
 */
export interface CompressEndRecord extends RecordBase {
  type: 'compress_end';
  run: number;
  ok: boolean;
  before_count: number;
  after_count: number;
  from?: number;
  to?: number;
  /** How many messages the summary replaced (`to - from`). */
  replaced?: number;
  summary?: string;
  summary_message?: Message;
  error?: string;
  /** Token usage of the summary call, when reported (not counted in the run's `usage`). */
  usage?: Usage;
}

/**
 * A run ended. `usage` is the sum of this run's model calls; `usage_total` and `run` are
 * cumulative over the session, so the last `run_end` alone tells a listing the totals.
 */
export interface RunEndRecord extends RecordBase {
  type: 'run_end';
  run: number;
  stopped_reason: StoppedReason | 'error';
  turns_used: number;
  /** The length of the loop's history at the end; a reader truncates its view to this length. */
  messages_count: number;
  usage: Usage;
  usage_total: Usage;
  /** What this run's model calls cost in dollars; null when one of them had no known price. */
  cost_usd?: number | null;
  /** The session's cost so far, in dollars; null when a call of it had no known price. */
  cost_total_usd?: number | null;
  error?: string;
}

/** The session was given a title (the last one wins over the first user message). */
export interface TitleRecord extends RecordBase {
  type: 'title';
  title: string;
}

/**
 * A decision on whether a tool call may run: by a rule, the approval mode, a remembered answer,
 * a person (`approver`), a refusal because nobody could be asked (`no_approver`), or a
 * `PreToolUse` hook's `permissionDecision: "allow"` that skipped the question (`hook`).
 */
export interface PermissionRecord extends RecordBase {
  type: 'permission';
  /** The run the call belongs to, when known. */
  run?: number;
  tool: string;
  tool_call_id?: string;
  /** One line for a person: `terminal: git push`. */
  title: string;
  decision: 'allow' | 'deny';
  source: 'rule' | 'mode' | 'session' | 'approver' | 'no_approver' | 'hook';
  /** The rule that decided, as written (`terminal(git push*)`). */
  rule?: string;
  /** The approver's answer, when one was asked. */
  option?: string;
}

/**
 * A hook command ran on an agent event (`PreToolUse`, `Stop`…) and decided: `block` (the call,
 * the prompt or the stop refused, `reason` saying why), `context` (text added for the model),
 * `none`, or `error` (the hook failed; nothing was blocked).
 */
export interface HookRecord extends RecordBase {
  type: 'hook';
  event: string;
  command: string;
  exit_code: number | null;
  decision: 'block' | 'context' | 'none' | 'error';
  /** The tool, for `PreToolUse` and `PostToolUse`: Claude Code's name (`Bash`). */
  tool?: string;
  reason?: string;
  context?: string;
  /** `PreToolUse`: the hook's `permissionDecision` when it was `allow` or `ask`. */
  permission?: 'allow' | 'ask';
}

/**
 * A checkpoint of the work folder was taken for a run (`@lich/checkpoints`): `before_prompt` just
 * before the run's first change (a write, an edit, a command), `after_prompt` when the run ended.
 */
export interface CheckpointMarkRecord extends RecordBase {
  type: 'checkpoint';
  run: number;
  kind: 'before_prompt' | 'after_prompt';
  checkpoint_id: string;
}

/**
 * The session was rewound. With `kept`, the conversation became its first `kept` messages
 * followed by `messages` (a rewind cuts it: `messages` empty; a redo puts the cut ones back), and
 * the prompts from run `run` on left it. With `restored`, the files were put back as checkpoint
 * `restored` had them; `before` is the checkpoint taken just before (restoring it is the redo),
 * `after` the one just after.
 */
export interface RewindRecord extends RecordBase {
  type: 'rewind';
  /** The run rewound to (its prompt and those after it are undone). */
  run: number;
  /** True for a redo (the undoing of the previous rewind). */
  redo?: boolean;
  kept?: number;
  messages?: Message[];
  restored?: string;
  before?: string;
  after?: string;
}

/** Any record of a session file. */
export type SessionRecord =
  | SessionStartRecord
  | RunStartRecord
  | MessageRecord
  | BudgetExhaustedRecord
  | CompressEndRecord
  | RunEndRecord
  | TitleRecord
  | PermissionRecord
  | HookRecord
  | CheckpointMarkRecord
  | RewindRecord;

/** The record types a session file holds, as listed in `SESSION_RECORD_TYPES`. */
export type SessionRecordType = SessionRecord['type'];

type WithoutStamp<T> = T extends unknown ? Omit<T, 'v' | 'at'> & { at?: string } : never;

/** A record as handed to `SessionHandle.append`: the handle stamps `v` and (unless given) `at`. */
export type SessionRecordInput = WithoutStamp<SessionRecord>;

/** Every record type this version knows. */
export const SESSION_RECORD_TYPES: readonly SessionRecordType[] = [
  'session_start',
  'run_start',
  'message',
  'budget_exhausted',
  'compress_end',
  'run_end',
  'title',
  'permission',
  'hook',
  'checkpoint',
  'rewind',
];

/** Stamps an input record with the format version and a time, `v`, `type` and `at` first. */
export function stamp_record(record: SessionRecordInput, at: string): SessionRecord {
  const { type, at: given, ...rest } = record;
  return { v: SESSION_FORMAT_VERSION, type, at: given ?? at, ...rest } as SessionRecord;
}

/**
 * Serialises a record as one JSONL line, with the trailing newline. Throws a `TypeError` when the
 * record cannot be serialised (a cycle, a BigInt).
 */
export function record_line(record: SessionRecord): string {
  return `${JSON.stringify(record)}\n`;
}

/** How long the `input` of a `run_start` record may be, in characters. */
export const RUN_INPUT_LIMIT = 200;
