import { type AgentEvent, content_text, type Usage } from '@lich/core';
import type { RouterEvent } from '@lich/providers';
import { read_todos, TODO_TOOL } from '../toolbox/todo_list.js';
import type { DeltaKind } from './delta_coalescer.js';
import type { HostEventPayloads, HostEventType } from './session_host_types.js';

/** Where one turn's mapped events go. */
export interface TurnSink {
  readonly turn_id: string;
  /** A piece of streamed text or reasoning (coalesced by the receiver). */
  delta(kind: DeltaKind, text: string): void;
  /** A whole event; the receiver sends pending deltas first. */
  publish<K extends HostEventType>(type: K, payload: HostEventPayloads[K]): void;
  /**
   * A model call's usage, once it ended, with who answered (for its price) and how long it took;
   * the receiver publishes `usage.update`.
   */
  usage(
    usage: Usage | undefined,
    provider?: string,
    model?: string,
    duration_ms?: number,
    /** The dollars when the caller knows them (a subagent's whole run); else priced here. */
    cost_usd?: number | null,
  ): void;
}

/** Publishes `todo.updated` for a `todo_write` call that went through. */
function publish_todos(raw: string, sink: TurnSink): void {
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch {
    return;
  }
  const read = read_todos(args);
  if ('items' in read) sink.publish('todo.updated', { turn_id: sink.turn_id, items: read.items });
}

function parsed_args(raw: string, parsed: unknown): unknown {
  return parsed === undefined ? raw : parsed;
}

/**
 * Maps one loop event of a host run onto host events: `llm_delta` → `message.delta` /
 * `reasoning.delta`, `llm_end` → `message.completed` and `usage.update`, tool calls →
 * `tool.start` / `tool.end`, `steer` → `message.steered`, `budget` and `budget_exhausted` →
 * `budget.notice`, `compress_end` → `compaction`. The
 * other loop events say nothing a surface needs (`turn.started` and `turn.completed` come from
 * the run itself). Never throws unless the sink does.
 */
export function map_agent_event(event: AgentEvent, sink: TurnSink): void {
  const { turn_id } = sink;
  switch (event.type) {
    case 'llm_delta':
      sink.delta(event.delta.kind === 'reasoning' ? 'reasoning' : 'text', event.delta.text);
      return;
    case 'llm_end':
      sink.publish('message.completed', { turn_id, message: event.message });
      sink.usage(event.usage, event.provider, event.model, event.duration_ms);
      return;
    case 'tool_call_start':
      sink.publish('tool.start', {
        turn_id,
        tool_call_id: event.call.id,
        name: event.call.name,
        args: parsed_args(event.call.arguments, event.args),
      });
      return;
    case 'tool_call_running':
      sink.publish('tool.running', {
        turn_id,
        tool_call_id: event.call.id,
        name: event.call.name,
      });
      return;
    case 'tool_call_end': {
      const { result } = event;
      // `sandbox` is how a command ran: 'bwrap', 'sandbox-exec', or 'none'; absent for other tools
      const sandboxed = result.sandbox === undefined ? undefined : result.sandbox !== 'none';
      sink.publish('tool.end', {
        turn_id,
        tool_call_id: event.call.id,
        name: event.call.name,
        ok: result.ok,
        output: result.output,
        ...(result.error === undefined ? {} : { error: result.error }),
        duration_ms: result.duration_ms,
        ...(typeof sandboxed === 'boolean' ? { sandboxed } : {}),
      });
      if (event.call.name === TODO_TOOL && result.ok) publish_todos(event.call.arguments, sink);
      return;
    }
    case 'steer':
      for (const message of event.messages) {
        sink.publish('message.steered', { turn_id, text: content_text(message.content) });
      }
      return;
    case 'budget':
      sink.publish('budget.notice', {
        turn_id,
        kind: 'spending',
        level: event.level,
        message: event.message,
        scope: event.scope,
      });
      return;
    case 'budget_exhausted':
      sink.publish('budget.notice', {
        turn_id,
        kind: 'turns',
        level: 'stop',
        message: `${event.max_turns === 1 ? 'used the 1 turn allowed' : `used all ${event.max_turns} turns`}${event.grace ? '; asking for a final answer' : ''}`,
        max_turns: event.max_turns,
        grace: event.grace,
      });
      return;
    case 'compress_end':
      sink.publish('compaction', {
        turn_id,
        ok: event.ok,
        before_count: event.before_count,
        after_count: event.after_count,
        ...(event.error === undefined ? {} : { error: event.error }),
      });
      return;
    default:
      return;
  }
}

/**
 * Maps an event of the provider router during a host run onto `provider.failover`: a retry of the
 * same provider (`kind: 'retry'`), or a move to the next one of the chain. Never throws unless
 * the sink does.
 */
export function map_router_event(event: RouterEvent, sink: TurnSink): void {
  const { turn_id } = sink;
  if (event.type === 'provider_retry') {
    sink.publish('provider.failover', {
      turn_id,
      kind: 'retry',
      provider: event.provider,
      model: event.model,
      attempt: event.attempt,
      delay_ms: event.delay_ms,
      reason: event.reason,
    });
    return;
  }
  sink.publish('provider.failover', {
    turn_id,
    kind: 'failover',
    provider: event.from_provider,
    model: event.from_model,
    to_provider: event.to_provider,
    to_model: event.to_model,
    reason: event.reason,
  });
}
