import { empty_usage } from '@lich/core';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent.js';
import { type TurnAccounts, turn_sink } from './turn_sink.js';
import { TurnWatch } from './turn_watch.js';

function session(price: (model: string | undefined) => number | null) {
  const published: { type: string; payload: Record<string, unknown> }[] = [];
  const accounts: TurnAccounts = {
    agent: {
      cost_of: (_usage: unknown, _provider: unknown, model?: string) => price(model),
      config: { context_window: 1000 },
    } as unknown as Agent,
    usage_total: empty_usage(),
    cost_total_usd: 0,
    publish: (type, payload) => {
      published.push({ type, payload: payload as Record<string, unknown> });
    },
  };
  return { accounts, published };
}

describe('turn_sink', () => {
  it("adds each call's usage to the turn and the session, priced, and says so", () => {
    const { accounts, published } = session((model) => (model === 'local' ? null : 0.25));
    const sink = turn_sink(accounts, 't1', new TurnWatch(), () => undefined);
    sink.usage({ input_tokens: 10, output_tokens: 2 }, 'anthropic', 'claude', 120);
    sink.usage({ input_tokens: 5, output_tokens: 1 }, 'anthropic', 'claude');
    expect(sink.turn_usage).toMatchObject({ input_tokens: 15, output_tokens: 3 });
    expect(accounts.usage_total).toMatchObject({ input_tokens: 15, output_tokens: 3 });
    expect(accounts.cost_total_usd).toBe(0.5);
    expect(published[0]).toMatchObject({
      type: 'usage.update',
      payload: { turn_id: 't1', cost_usd: 0.25, provider: 'anthropic', duration_ms: 120 },
    });
    // one call without a price: the session's cost is unknown from then on
    sink.usage({ input_tokens: 1, output_tokens: 1 }, 'ollama', 'local');
    sink.usage({ input_tokens: 1, output_tokens: 1 }, 'anthropic', 'claude');
    expect(accounts.cost_total_usd).toBeNull();
    expect(published.at(-1)?.payload).toMatchObject({ cost_usd: 0.25, cost_total_usd: null });
  });
});
