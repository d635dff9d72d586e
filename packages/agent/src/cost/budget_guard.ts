import {
  type AgentEmitter,
  BudgetStop,
  type ChatFn,
  estimate_definition_tokens,
  estimate_tokens,
} from '@lich/core';
import type { BudgetLedger, BudgetLimit } from './budget_ledger.js';
import { format_cost } from './model_price.js';
import type { PriceBook } from './price_book.js';

/** The share of a limit at which a run is warned once. */
export const BUDGET_WARNING_SHARE = 0.8;

/** What `guard_budget` needs. */
export interface BudgetGuardOptions {
  ledger: BudgetLedger;
  /** The limits every call of the run is reserved against; each with a `scope` for messages. */
  limits: readonly (BudgetLimit & { scope: string })[];
  prices: PriceBook;
  /** Who is called (the chain's first provider): the price of the worst case. */
  provider: string;
  model: string;
  /** The output limit of a call when the call names none. */
  max_tokens: number;
  emitter: AgentEmitter;
}

function scope_name(scope: string): string {
  return scope === 'day' ? 'daily' : scope;
}

/**
 * Wraps a ChatFn so each call first reserves its worst case on every limit (the prompt at the
 * input price plus `max_tokens` at the output price), and settles the reservation with the real
 * cost once the call answered (the worst case when the answer's model has no price; nothing when
 * the call failed).
 *
 * Contract: a reservation the ledger refuses makes no call: a `budget` event of level `stop`
 * is emitted and the call rejects with a `BudgetStop` (the loop ends the run with
 * `stopped_reason: 'budget'`); a model without a price refuses too, since nothing could be
 * reserved. Once a limit is 80% used, one `budget` warning is emitted for it per run.
 */
export function guard_budget(chat: ChatFn, options: BudgetGuardOptions): ChatFn {
  const { ledger, limits, prices, provider, model, emitter } = options;
  const warned = new Set<string>();
  const refuse = (message: string, scope: string, used: number): never => {
    emitter.emit({ type: 'budget', level: 'stop', message, scope, used });
    throw new BudgetStop(message, scope);
  };
  return async (messages, tools, chat_options) => {
    const input_tokens = estimate_tokens(messages) + estimate_definition_tokens(tools);
    const output_tokens = chat_options?.max_tokens ?? options.max_tokens;
    const worst = prices.cost({ input_tokens, output_tokens }, provider, model);
    if (worst === null) {
      return refuse(
        `the budget cannot be kept: ${provider}/${model} has no known price (add it to "prices" in the config)`,
        limits[0]?.scope ?? 'session',
        0,
      );
    }
    const granted = await ledger.reserve(limits, worst);
    if (!granted.ok) {
      const limit = limits.find((item) => item.key === granted.key);
      const scope = limit?.scope ?? 'session';
      return refuse(
        `the ${scope_name(scope)} budget of ${format_cost(granted.limit_usd)} would be crossed: ${format_cost(granted.spent_usd)} spent, ${granted.reserved_usd > 0 ? `${format_cost(granted.reserved_usd)} reserved, ` : ''}the next call may cost up to ${format_cost(worst)}`,
        scope,
        (granted.spent_usd + granted.reserved_usd) / granted.limit_usd,
      );
    }
    let cost = 0;
    try {
      const result = await chat(messages, tools, chat_options);
      cost =
        result.usage === undefined
          ? worst
          : (prices.cost(result.usage, result.provider ?? provider, result.model ?? model) ??
            worst);
      return result;
    } finally {
      await ledger.settle(granted.reservation, cost);
      for (const limit of limits) {
        if (warned.has(limit.key)) continue;
        const spent = await ledger.spent(limit.key);
        const used = spent / limit.limit_usd;
        if (used >= BUDGET_WARNING_SHARE) {
          warned.add(limit.key);
          emitter.emit({
            type: 'budget',
            level: 'warning',
            message: `${Math.round(used * 100)}% of the ${scope_name(limit.scope)} budget is spent (${format_cost(spent)} of ${format_cost(limit.limit_usd)})`,
            scope: limit.scope,
            used,
          });
        }
      }
    }
  };
}
