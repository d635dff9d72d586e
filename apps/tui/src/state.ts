/**
 * The TUI's state machine: a pure reducer over host events and the person's actions. No ink, no
 * react, no clock and no I/O: each action carries the time it needs, so the same actions always
 * give the same state, and the reducer is tested alone.
 *
 * Finished things become blocks (the screen writes each once into `<Static>`); the live turn
 * keeps only the answer's tail after its last safe markdown split, the running tools and the
 * reasoning being written.
 */

import { todos_from_history } from '@lich/agent/todo_list';
import type { Message } from '@lich/core';
import { history_blocks } from './history_blocks.js';
import { apply_host, sandbox_status } from './host_event_state.js';
import { end_turn } from './live_turn.js';
import { push } from './push_blocks.js';
import { reduce_rewind } from './rewind_state.js';
import type { TuiAction, TuiState } from './state_types.js';
import { top_level_sessions } from './top_level_sessions.js';

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
      return { ...state, picker: { ...top_level_sessions(action.sessions), selected: 0 } };
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
