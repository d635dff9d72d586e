/**
 * The events a `SessionHost` publishes: each type's payload, the list of types, and the event
 * envelope (session, epoch, sequence number). Part of the host contract (`session_host_types.ts`
 * re-exports it).
 */
import type { AssistantMessage, ToolPreview, Usage } from '@lich/core';
import type { RewindOutcome } from '../checkpoints/rewind_types.js';
import type { TodoItem } from '../toolbox/todo_list.js';
import type { PermissionOption, SessionInfo, TurnStopReason } from './session_host_types.js';

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
    /** Who answered the call (after a failover, not the chain's first), when known. */
    provider?: string;
    model?: string;
    /** How long the call took, when known. */
    duration_ms?: number;
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
  /**
   * A budget spoke during the turn: a spending limit mostly used (`kind: 'spending'`, `level:
   * 'warning'`) or reached (`'stop'`: the next model call was refused), or the turn budget used up
   * while the model still called tools (`kind: 'turns'`, `'stop'`; `grace` when one more call
   * without tools asks it for a final answer). `message` is one line for a person.
   */
  'budget.notice': TurnScoped & {
    kind: 'spending' | 'turns';
    level: 'warning' | 'stop';
    message: string;
    /** With `spending`: which limit (`session`, `day`, `sender`, `conversation`, `run`…). */
    scope?: string;
    /** With `turns`: the turns allowed, and whether the wrap-up call is made. */
    max_turns?: number;
    grace?: boolean;
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
  /** A subagent ended; its usage is part of this session's from now on. */
  'subagent.completed': TurnScoped & {
    /** Its usage and dollars include its own children's: totals count depth 1 only. */
    depth: number;
    tool_call_id: string;
    session_id: string | null;
    parent_session_id: string | null;
    ok: boolean;
    stopped_reason: string;
    usage: Usage;
    /**
     * What the child's model calls cost in dollars, its own children's included; null when one
     * had no known price.
     */
    cost_usd: number | null;
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
  'budget.notice',
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
