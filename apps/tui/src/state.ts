/**
 * The TUI's state machine: a pure reducer over host events and the person's actions. No ink, no
 * react, no clock and no I/O: each action carries the time it needs, so the same actions always
 * give the same state, and the reducer is tested alone.
 *
 * Finished things become blocks (the screen writes each once into `<Static>`); the live turn
 * keeps only the answer's tail after its last safe markdown split, the running tools and the
 * reasoning being written.
 */

import type { HostEvent, HostEventPayloads, SessionInfo } from '@lich/agent';
import { todos_from_history } from '@lich/agent/todo_list';
import type { Message } from '@lich/core';
import { history_blocks, type NewBlock } from './history_blocks.js';
import { find_safe_split } from './markdown_split.js';
import { reduce_rewind } from './rewind_state.js';
import type { LiveTurn, PermissionView, ToolView, TuiAction, TuiState } from './state_types.js';
import {
  subagent_activity,
  subagent_completed,
  subagent_detail,
  subagent_started,
  take_subagent,
} from './subagent_state.js';

/** The state before any session is open. */
export function initial_state(options: { reasoning_expanded?: boolean } = {}): TuiState {
  return {
    session: null,
    epoch: null,
    last_seq: null,
    needs_resync: false,
    blocks: [],
    generation: 0,
    next_id: 1,
    turn: null,
    permissions: [],
    queued: [],
    steering: [],
    status: {
      usage_total: { input_tokens: 0, output_tokens: 0 },
      retries: 0,
      failovers: 0,
      last_provider_note: null,
      sandboxed: null,
    },
    reasoning_expanded: options.reasoning_expanded ?? false,
    subagents_expanded: false,
    expandable: null,
    picker: null,
    leaving: false,
    rewind: null,
    draft: null,
    todos: [],
  };
}

function push(state: TuiState, ...blocks: NewBlock[]): TuiState {
  if (blocks.length === 0) return state;
  let next_id = state.next_id;
  const numbered = blocks.map((block) => ({ ...block, id: next_id++ }) as TuiState['blocks'][0]);
  return { ...state, blocks: [...state.blocks, ...numbered], next_id };
}

function new_turn(turn_id: string, at: number): LiveTurn {
  return {
    turn_id,
    started_at: at,
    text: '',
    message_text: '',
    reasoning: '',
    message_reasoned: false,
    answered: false,
    tools: [],
    subagents: [],
    finished_subagents: [],
  };
}

/** The live turn for `turn_id`, started implicitly when its first events are all we saw. */
function turn_of(state: TuiState, turn_id: string, at: number): LiveTurn {
  return state.turn?.turn_id === turn_id ? state.turn : new_turn(turn_id, at);
}

function flush_reasoning(state: TuiState, turn: LiveTurn): [TuiState, LiveTurn] {
  if (turn.reasoning.trim() === '') return [state, { ...turn, reasoning: '' }];
  const text = turn.reasoning.trim();
  const next = push(state, { kind: 'reasoning', text, expanded: state.reasoning_expanded });
  const expandable = state.reasoning_expanded
    ? next.expandable
    : { title: 'reasoning', text, diff: false };
  return [
    { ...next, expandable },
    { ...turn, reasoning: '' },
  ];
}

/** Moves answer text into blocks: all of it (`whole`), or what comes before its last safe split. */
function flush_text(state: TuiState, turn: LiveTurn, whole: boolean): [TuiState, LiveTurn] {
  const cut = whole ? turn.text.length : find_safe_split(turn.text);
  if (cut === 0) return [state, turn];
  const done = turn.text.slice(0, cut).replace(/\s+$/, '');
  const rest = turn.text.slice(cut);
  const next = done === '' ? state : push(state, { kind: 'answer', text: done });
  return [next, { ...turn, text: rest, answered: turn.answered || done !== '' }];
}

function flush_all(state: TuiState, turn: LiveTurn): [TuiState, LiveTurn] {
  const [a, t1] = flush_reasoning(state, turn);
  return flush_text(a, t1, true);
}

function with_turn(state: TuiState, turn: LiveTurn | null): TuiState {
  return { ...state, turn };
}

type Payload<K extends keyof HostEventPayloads> = HostEventPayloads[K];

function failover_note(payload: Payload<'provider.failover'>): string {
  const from = `${payload.provider}/${payload.model}`;
  if (payload.kind === 'retry') {
    const attempt = payload.attempt === undefined ? '' : ` (attempt ${payload.attempt})`;
    const delay =
      payload.delay_ms === undefined ? '' : ` in ${(payload.delay_ms / 1000).toFixed(1)}s`;
    return `retrying ${from}${attempt}${delay}: ${payload.reason}`;
  }
  const to =
    payload.to_provider === undefined
      ? 'the next provider'
      : `${payload.to_provider}/${payload.to_model ?? '?'}`;
  return `${from} failed, moving to ${to}: ${payload.reason}`;
}

const OPTION_WORDS: Record<string, string> = {
  allow_once: 'allowed once',
  allow_always: 'allowed always',
  reject_once: 'rejected',
  reject_always: 'rejected always',
  cancelled: 'cancelled',
};

/** The status line's sandbox part from the host's word for it (C46); nothing while unknown. */
function sandbox_status(kind: string | undefined): { sandboxed?: boolean } {
  return kind === undefined ? {} : { sandboxed: kind !== 'none' && kind !== 'off' };
}

function finish_tool(state: TuiState, live: LiveTurn, payload: Payload<'tool.end'>, at: number) {
  const running = live.tools.find((tool) => tool.tool_call_id === payload.tool_call_id);
  // a `task` call's child leaves the live region with it, nested in its block
  const [subagent, turn] = take_subagent(live, payload.tool_call_id, payload.output);
  const tool: ToolView = {
    tool_call_id: payload.tool_call_id,
    name: payload.name,
    args: running?.args ?? null,
    started_at: running?.started_at ?? at - payload.duration_ms,
    ok: payload.ok,
    output: payload.output,
    ...(payload.error === undefined ? {} : { error: payload.error }),
    duration_ms: payload.duration_ms,
    ...(payload.sandboxed === undefined ? {} : { sandboxed: payload.sandboxed }),
    ...(subagent === undefined ? {} : { subagent }),
  };
  let next = push(state, { kind: 'tool', tool });
  if (payload.output.trim() !== '') {
    // Ctrl+O opens what the tool gave the model: a command's output and errors (C15)
    next = {
      ...next,
      expandable: { title: `${payload.name} output`, text: payload.output, diff: false },
    };
  }
  if (payload.name === 'edit_file' && payload.ok) {
    const path = (tool.args as { path?: unknown } | null)?.path;
    next = {
      ...next,
      expandable: {
        title: `edit_file ${typeof path === 'string' ? path : ''}`.trim(),
        text: payload.output,
        diff: true,
      },
    };
  }
  if (subagent !== undefined) {
    // Ctrl+O opens every child of the turn that finished so far: parallel ones together
    const detail = subagent_detail(turn.finished_subagents);
    next = { ...next, expandable: { ...detail, diff: false } };
  }
  if (payload.sandboxed !== undefined) {
    next = { ...next, status: { ...next.status, sandboxed: payload.sandboxed } };
  }
  const tools = turn.tools.filter((entry) => entry.tool_call_id !== payload.tool_call_id);
  return with_turn(next, { ...turn, tools });
}

/** Ends the live turn: what is left of it becomes blocks; running tools are shown interrupted. */
function end_turn(state: TuiState, turn: LiveTurn): TuiState {
  let [next, rest] = flush_all(state, turn);
  for (const tool of rest.tools) {
    const subagent = rest.subagents.find((view) => view.tool_call_id === tool.tool_call_id);
    next = push(next, {
      kind: 'tool',
      tool: { ...tool, interrupted: true, ...(subagent === undefined ? {} : { subagent }) },
    });
  }
  const permissions = next.permissions.filter((request) => request.turn_id !== turn.turn_id);
  return { ...next, turn: null, permissions, subagents_expanded: false };
}

function apply_event(state: TuiState, event: HostEvent, at: number): TuiState {
  switch (event.type) {
    case 'session.info':
      return {
        ...state,
        session: event.payload,
        status: {
          ...state.status,
          usage_total: event.payload.usage_total,
          ...sandbox_status(event.payload.sandbox),
        },
      };
    case 'turn.started': {
      const { payload } = event;
      let next = state.turn === null ? state : end_turn(state, state.turn);
      // The queued entry this turn runs: by request id, else (a follow-up has none) by its text.
      const by_id = next.queued.findIndex(
        (entry) => entry.client_request_id === payload.client_request_id,
      );
      const index =
        by_id !== -1 ? by_id : next.queued.findIndex((entry) => entry.text === payload.input);
      const queued = index === -1 ? next.queued : next.queued.toSpliced(index, 1);
      // Steering sent with no run to take it (or left over at the end of one) runs as a prompt.
      const steered = next.steering.indexOf(payload.input);
      const steering = steered === -1 ? next.steering : next.steering.toSpliced(steered, 1);
      next = push(
        { ...next, queued, steering },
        { kind: 'user', text: payload.input, via: payload.kind },
      );
      return with_turn(next, new_turn(payload.turn_id, at));
    }
    case 'reasoning.delta': {
      const turn = turn_of(state, event.payload.turn_id, at);
      return with_turn(state, {
        ...turn,
        reasoning: turn.reasoning + event.payload.text,
        message_reasoned: true,
      });
    }
    case 'message.delta': {
      let [next, turn] = flush_reasoning(state, turn_of(state, event.payload.turn_id, at));
      turn = {
        ...turn,
        text: turn.text + event.payload.text,
        message_text: turn.message_text + event.payload.text,
      };
      [next, turn] = flush_text(next, turn, false);
      return with_turn(next, turn);
    }
    case 'message.completed': {
      const { message } = event.payload;
      let turn = turn_of(state, event.payload.turn_id, at);
      // Text the stream did not bring (joined late, a provider that does not stream) is added.
      if (message.content.startsWith(turn.message_text)) {
        turn = { ...turn, text: turn.text + message.content.slice(turn.message_text.length) };
      }
      if (!turn.message_reasoned && message.reasoning) {
        turn = { ...turn, reasoning: message.reasoning };
      }
      const [next, flushed] = flush_all(state, turn);
      return with_turn(next, { ...flushed, message_text: '', message_reasoned: false });
    }
    case 'message.steered': {
      const { text } = event.payload;
      const index = state.steering.indexOf(text);
      const steering = index === -1 ? state.steering : state.steering.toSpliced(index, 1);
      let [next, turn] = flush_all(state, turn_of(state, event.payload.turn_id, at));
      next = push({ ...next, steering }, { kind: 'user', text, via: 'steer' });
      return with_turn(next, turn);
    }
    case 'tool.start': {
      const { payload } = event;
      let [next, turn] = flush_all(state, turn_of(state, payload.turn_id, at));
      if (!turn.tools.some((tool) => tool.tool_call_id === payload.tool_call_id)) {
        const tool = { tool_call_id: payload.tool_call_id, name: payload.name, args: payload.args };
        turn = { ...turn, tools: [...turn.tools, { ...tool, started_at: at }] };
      }
      return with_turn(next, turn);
    }
    case 'tool.running': {
      const { payload } = event;
      const turn = turn_of(state, payload.turn_id, at);
      const tools = turn.tools.map((tool) =>
        tool.tool_call_id === payload.tool_call_id
          ? { ...tool, running: true, started_at: at }
          : tool,
      );
      return with_turn(state, { ...turn, tools });
    }
    case 'tool.end':
      return finish_tool(state, turn_of(state, event.payload.turn_id, at), event.payload, at);
    case 'permission.request': {
      const { payload } = event;
      if (state.permissions.some((request) => request.request_id === payload.request_id)) {
        return state;
      }
      const request: PermissionView = {
        request_id: payload.request_id,
        turn_id: payload.turn_id,
        tool_call_id: payload.tool_call_id,
        tool: payload.tool,
        title: payload.title,
        args: payload.args,
        ...(payload.preview === undefined ? {} : { preview: payload.preview }),
        options: payload.options,
        shown_at: at,
      };
      return { ...state, permissions: [...state.permissions, request] };
    }
    case 'permission.resolved': {
      const { payload } = event;
      const request = state.permissions.find((entry) => entry.request_id === payload.request_id);
      const permissions = state.permissions.filter((entry) => entry !== request);
      const what = request?.title ?? 'a tool call';
      const rejected = payload.option !== 'allow_once' && payload.option !== 'allow_always';
      return push(
        { ...state, permissions },
        {
          kind: 'notice',
          level: rejected ? 'warn' : 'info',
          text: `${OPTION_WORDS[payload.option] ?? payload.option}: ${what}`,
        },
      );
    }
    case 'turn.completed': {
      const { payload } = event;
      let turn = turn_of(state, payload.turn_id, at);
      if (!turn.answered && turn.text.trim() === '' && payload.final) {
        turn = { ...turn, text: payload.final };
      }
      let next = end_turn(state, turn);
      if (payload.stop_reason !== 'final') {
        next = push(next, {
          kind: 'turn_end',
          stop_reason: payload.stop_reason,
          ...(payload.error === undefined ? {} : { error: payload.error }),
          ...(payload.hints === undefined ? {} : { hints: payload.hints }),
        });
      }
      return next;
    }
    case 'usage.update': {
      const { payload } = event;
      const status = {
        ...state.status,
        usage_total: payload.usage_total,
        ...(payload.cost_total_usd === undefined ? {} : { cost_total_usd: payload.cost_total_usd }),
        ...(payload.context_tokens === undefined ? {} : { context_tokens: payload.context_tokens }),
        ...(payload.context_window === undefined ? {} : { context_window: payload.context_window }),
      };
      return { ...state, status };
    }
    case 'provider.failover': {
      const { payload } = event;
      const note = failover_note(payload);
      const status = {
        ...state.status,
        retries: state.status.retries + (payload.kind === 'retry' ? 1 : 0),
        failovers: state.status.failovers + (payload.kind === 'failover' ? 1 : 0),
        last_provider_note: note,
      };
      return push({ ...state, status }, { kind: 'notice', level: 'warn', text: note });
    }
    case 'budget.notice':
      return push(state, { kind: 'notice', level: 'warn', text: event.payload.message });
    case 'compaction': {
      const { payload } = event;
      const text = payload.ok
        ? `history compacted: ${payload.before_count} → ${payload.after_count} messages`
        : `compaction failed: ${payload.error ?? 'unknown error'}`;
      return push(state, { kind: 'notice', level: payload.ok ? 'info' : 'warn', text });
    }
    case 'checkpoint.created':
      // a prompt whose files can be rewound from now on; the end-of-turn one says nothing new
      if (event.payload.kind !== 'before_prompt') return state;
      return push(state, { kind: 'checkpoint', prompt: event.payload.prompt });
    case 'subagent.started': {
      const turn = turn_of(state, event.payload.turn_id, at);
      const on_screen = state.session?.session_id ?? null;
      return with_turn(state, subagent_started(turn, event.payload, on_screen, at));
    }
    case 'subagent.activity':
      return with_turn(
        state,
        subagent_activity(turn_of(state, event.payload.turn_id, at), event.payload),
      );
    case 'subagent.completed':
      return with_turn(
        state,
        subagent_completed(turn_of(state, event.payload.turn_id, at), event.payload, at),
      );
    case 'plan.proposed':
      // shown by its permission question (the plan is the preview)
      return state;
    case 'todo.updated':
      return { ...state, todos: event.payload.items };
    case 'session.rewound':
      // the controller fetches the history again and replaces the transcript (`history_replaced`)
      return state;
    case 'error':
      return push(state, { kind: 'notice', level: 'error', text: event.payload.message });
  }
}

/**
 * Applies one host event. Events of another session and events already seen are ignored. An
 * event past a gap (a seq skipped, or another epoch after events of this one) is not applied:
 * the state asks for a resync from the last event applied in order, whose replay brings the
 * missed events and this one again.
 */
function apply_host(state: TuiState, event: HostEvent, at: number): TuiState {
  if (state.session === null || event.session_id !== state.session.session_id) return state;
  const same_epoch = state.epoch === event.epoch;
  if (same_epoch && state.last_seq !== null && event.seq <= state.last_seq) return state;
  const gap =
    (same_epoch && state.last_seq !== null && event.seq > state.last_seq + 1) ||
    (!same_epoch && state.epoch !== null && state.last_seq !== null);
  if (gap) return state.needs_resync ? state : { ...state, needs_resync: true };
  return { ...apply_event(state, event, at), epoch: event.epoch, last_seq: event.seq };
}

/**
 * The sessions a person started, and how many subagents' sessions sit beneath each (a child
 * whose parent is not listed stays, so nothing is lost).
 */
function top_level(sessions: readonly SessionInfo[]): {
  sessions: SessionInfo[];
  subagents: Record<string, number>;
} {
  const by_id = new Map(sessions.map((session) => [session.session_id, session]));
  const subagents: Record<string, number> = {};
  const top: SessionInfo[] = [];
  for (const session of sessions) {
    let root: SessionInfo = session;
    for (let hops = 0; hops < sessions.length; hops += 1) {
      const parent =
        root.parent_session_id === undefined ? undefined : by_id.get(root.parent_session_id);
      if (parent === undefined || parent === session) break;
      root = parent;
    }
    if (root === session) top.push(session);
    else subagents[root.session_id] = (subagents[root.session_id] ?? 0) + 1;
  }
  return { sessions: top, subagents };
}

/** The last exchange of a conversation: from its last user message on. */
function last_exchange(messages: readonly Message[]): readonly Message[] {
  let index = messages.length - 1;
  while (index >= 0 && messages[index]?.role !== 'user') index -= 1;
  return index < 0 ? [] : messages.slice(index);
}

/**
 * The next state. Pure: never mutates `state`, never throws for any action, and host events are
 * idempotent (an event replayed after a reconnect is applied once).
 */
export function reduce(state: TuiState, action: TuiAction): TuiState {
  switch (action.type) {
    case 'host':
      return apply_host(state, action.event, action.at);
    case 'session_opened': {
      const base: TuiState = {
        ...state,
        session: action.info,
        epoch: action.epoch,
        last_seq: null,
        needs_resync: false,
        turn: null,
        permissions: [],
        queued: [],
        steering: [],
        status: {
          ...state.status,
          usage_total: action.info.usage_total,
          ...sandbox_status(action.info.sandbox),
        },
        todos: todos_from_history(action.history) ?? [],
      };
      return push(base, ...history_blocks(action.history));
    }
    case 'resynced': {
      let next: TuiState = {
        ...state,
        epoch: action.epoch,
        needs_resync: false,
        ...(action.info === undefined ? {} : { session: action.info }),
      };
      // Replayed events continue where the stream broke off; nothing else changes.
      if (!action.truncated) return next;
      // The missed events are gone: what was live is finished as far as this screen can tell.
      if (next.turn !== null) next = end_turn(next, next.turn);
      next = { ...next, last_seq: null, permissions: [] };
      next = push(next, {
        kind: 'notice',
        level: 'warn',
        text: 'reconnected: some events were lost; the last exchange is shown again from history',
      });
      return push(next, ...history_blocks(last_exchange(action.history ?? [])));
    }
    case 'notice':
      return push(state, { kind: 'notice', level: action.level, text: action.text });
    case 'command_output':
      return push(state, {
        kind: 'command',
        name: action.name,
        ...(action.args === undefined || action.args === '' ? {} : { args: action.args }),
        ok: action.ok,
        output: action.output,
      });
    case 'queued':
      return {
        ...state,
        queued: [
          ...state.queued,
          { text: action.text, client_request_id: action.client_request_id },
        ],
      };
    case 'queue_taken':
      return { ...state, queued: [], steering: [] };
    case 'unqueued':
      return {
        ...state,
        queued: state.queued.filter(
          (entry) => entry.client_request_id !== action.client_request_id,
        ),
      };
    case 'steer_sent':
      return { ...state, steering: [...state.steering, action.text] };
    case 'clear':
      return {
        ...initial_state({ reasoning_expanded: state.reasoning_expanded }),
        generation: state.generation + 1,
        next_id: state.next_id,
      };
    case 'picker_open':
      return { ...state, picker: { ...top_level(action.sessions), selected: 0 } };
    case 'picker_move': {
      if (state.picker === null) return state;
      const last = Math.max(0, state.picker.sessions.length - 1);
      const selected = Math.min(last, Math.max(0, state.picker.selected + action.by));
      return { ...state, picker: { ...state.picker, selected } };
    }
    case 'leave':
      return { ...state, leaving: true };
    case 'rewind_open':
    case 'rewind_move':
    case 'rewind_choose':
    case 'rewind_back':
    case 'rewind_working':
    case 'rewind_conflicts':
    case 'rewind_close':
      return reduce_rewind(state, action);
    case 'history_replaced': {
      // like /clear, a new transcript below the old one (the scrollback is never rewritten)
      let next: TuiState = {
        ...state,
        blocks: [],
        generation: state.generation + 1,
        turn: null,
        permissions: [],
        rewind: null,
        draft: action.draft,
        todos: todos_from_history(action.history) ?? [],
      };
      next = push(next, ...history_blocks(action.history));
      return push(next, { kind: 'notice', level: 'info', text: action.notice });
    }
    case 'draft_taken':
      return state.draft === null ? state : { ...state, draft: null };
    case 'picker_close':
      return { ...state, picker: null };
    case 'toggle_reasoning': {
      const expanded = !state.reasoning_expanded;
      // said on screen: reasoning already printed keeps its look, so the key would seem to do nothing (C45)
      return push(
        { ...state, reasoning_expanded: expanded },
        {
          kind: 'notice',
          level: 'info',
          text: expanded
            ? 'reasoning: shown in full from now on (Ctrl+T folds it; Ctrl+O opens the last one)'
            : 'reasoning: folded from now on (Ctrl+T shows it in full)',
        },
      );
    }
    case 'expand': {
      // while children run, Ctrl+O opens (and folds again) their blocks in the live region
      if ((state.turn?.subagents.length ?? 0) > 0) {
        return { ...state, subagents_expanded: !state.subagents_expanded };
      }
      if (state.expandable === null) {
        return push(state, { kind: 'notice', level: 'info', text: 'nothing to expand' });
      }
      const { title, text, diff } = state.expandable;
      return push({ ...state, expandable: null }, { kind: 'expanded', title, text, diff });
    }
  }
}
