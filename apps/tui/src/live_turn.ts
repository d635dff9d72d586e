/**
 * The live turn of the TUI's state, and how it becomes blocks: the answer's text before its last
 * safe markdown split, the reasoning once the answer starts, each tool when it ends, and all that
 * is left when the turn does. Pure, as the reducer is.
 */

import type { HostEventPayloads } from '@lich/agent';
import { find_safe_split } from './markdown_split.js';
import { push } from './push_blocks.js';
import type { LiveTurn, ToolView, TuiState } from './state_types.js';
import { subagent_detail, take_subagent } from './subagent_state.js';

/** A turn just started: nothing written, nothing running. */
export function new_turn(turn_id: string, at: number): LiveTurn {
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
export function turn_of(state: TuiState, turn_id: string, at: number): LiveTurn {
  return state.turn?.turn_id === turn_id ? state.turn : new_turn(turn_id, at);
}

/** Moves the reasoning written so far into a block (the last one Ctrl+O opens, when folded). */
export function flush_reasoning(state: TuiState, turn: LiveTurn): [TuiState, LiveTurn] {
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
export function flush_text(state: TuiState, turn: LiveTurn, whole: boolean): [TuiState, LiveTurn] {
  const cut = whole ? turn.text.length : find_safe_split(turn.text);
  if (cut === 0) return [state, turn];
  const done = turn.text.slice(0, cut).replace(/\s+$/, '');
  const rest = turn.text.slice(cut);
  const next = done === '' ? state : push(state, { kind: 'answer', text: done });
  return [next, { ...turn, text: rest, answered: turn.answered || done !== '' }];
}

/** Moves the reasoning and all of the answer's text into blocks. */
export function flush_all(state: TuiState, turn: LiveTurn): [TuiState, LiveTurn] {
  const [a, t1] = flush_reasoning(state, turn);
  return flush_text(a, t1, true);
}

/** `state` with `turn` as its live turn. */
export function with_turn(state: TuiState, turn: LiveTurn | null): TuiState {
  return { ...state, turn };
}

/**
 * Ends a tool call: its block (with a `task` call's child nested in it), what Ctrl+O opens next,
 * and the sandbox part of the status line; the call leaves the live turn.
 */
export function finish_tool(
  state: TuiState,
  live: LiveTurn,
  payload: HostEventPayloads['tool.end'],
  at: number,
) {
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
export function end_turn(state: TuiState, turn: LiveTurn): TuiState {
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
