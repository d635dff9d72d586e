/**
 * How the TUI's state takes one host event: in order, once, per session (`apply_host`), each kind
 * of event as the screen shows it (`apply_event`). Pure, as the reducer is.
 */

import type { HostEvent, HostEventPayloads } from '@lich/agent';
import {
  end_turn,
  finish_tool,
  flush_all,
  flush_reasoning,
  flush_text,
  new_turn,
  turn_of,
  with_turn,
} from './live_turn.js';
import { push } from './push_blocks.js';
import type { PermissionView, TuiState } from './state_types.js';
import { subagent_activity, subagent_completed, subagent_started } from './subagent_state.js';

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
export function sandbox_status(kind: string | undefined): { sandboxed?: boolean } {
  return kind === undefined ? {} : { sandboxed: kind !== 'none' && kind !== 'off' };
}

/** Applies one host event of the session on screen, in order (see `apply_host`). */
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
export function apply_host(state: TuiState, event: HostEvent, at: number): TuiState {
  if (state.session === null || event.session_id !== state.session.session_id) return state;
  const same_epoch = state.epoch === event.epoch;
  if (same_epoch && state.last_seq !== null && event.seq <= state.last_seq) return state;
  const gap =
    (same_epoch && state.last_seq !== null && event.seq > state.last_seq + 1) ||
    (!same_epoch && state.epoch !== null && state.last_seq !== null);
  if (gap) return state.needs_resync ? state : { ...state, needs_resync: true };
  return { ...apply_event(state, event, at), epoch: event.epoch, last_seq: event.seq };
}
