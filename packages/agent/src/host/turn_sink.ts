import { add_usage, empty_usage, type Usage } from '@lich/core';
import type { Agent } from '../agent.js';
import type { DeltaKind } from './delta_coalescer.js';
import type { TurnSink } from './host_event_mapper.js';
import type { HostEventPayloads, HostEventType } from './session_host_types.js';
import type { TurnWatch } from './turn_watch.js';

/** What a turn's sink writes to: its session's running totals and event stream. */
export interface TurnAccounts {
  readonly agent: Agent;
  usage_total: Usage;
  /** Null once a call had no known price. */
  cost_total_usd: number | null;
  publish<K extends HostEventType>(type: K, payload: HostEventPayloads[K]): void;
}

/**
 * The sink one turn's events are mapped into: deltas to `delta`, events to the session, and each
 * model call's usage added to the turn's and the session's totals (priced by the agent's price
 * book) and published as `usage.update` with the context the turn last reported.
 */
export function turn_sink(
  session: TurnAccounts,
  turn_id: string,
  seen: TurnWatch,
  delta: (kind: DeltaKind, text: string) => void,
): TurnSink & { readonly turn_usage: Usage } {
  let turn_usage = empty_usage();
  return {
    turn_id,
    get turn_usage() {
      return turn_usage;
    },
    delta,
    publish: (type, payload) => session.publish(type, payload),
    usage: (usage, provider, model, duration_ms, known_cost) => {
      turn_usage = add_usage(turn_usage, usage);
      session.usage_total = add_usage(session.usage_total, usage);
      // a run has loaded the prices by the end of each model call (`priced_chat`)
      const cost =
        known_cost !== undefined
          ? known_cost
          : session.agent.cost_of(usage ?? empty_usage(), provider, model);
      session.cost_total_usd =
        session.cost_total_usd === null || cost === null ? null : session.cost_total_usd + cost;
      session.publish('usage.update', {
        turn_id,
        usage: usage ?? empty_usage(),
        usage_total: { ...session.usage_total },
        cost_usd: cost,
        cost_total_usd: session.cost_total_usd,
        context_tokens: seen.context_tokens,
        context_window: session.agent.config.context_window,
        ...(provider === undefined ? {} : { provider }),
        ...(model === undefined ? {} : { model }),
        ...(duration_ms === undefined ? {} : { duration_ms }),
      });
    },
  };
}
