import { make_config } from '@lich/agent';
import { describe, expect, it } from 'vitest';
import { costs_read } from './costs_read.js';
import type { OutputSettings } from './output_settings.js';

const text: OutputSettings = { format: 'text', quiet: false, verbose: false };

describe('costs_read', () => {
  const config = make_config({ work_dir: '/tmp' });

  it('is false only for a text task that records no session, says no costs and has no budget', () => {
    expect(costs_read({ no_session: true, output: text, config })).toBe(false);
    expect(costs_read({ no_session: true, output: { ...text, quiet: true }, config })).toBe(false);
  });

  it('is true when a session records the costs, or the output shows them', () => {
    expect(costs_read({ no_session: false, output: text, config })).toBe(true);
    expect(costs_read({ no_session: true, output: { ...text, verbose: true }, config })).toBe(true);
    for (const format of ['json', 'stream-json'] as const) {
      expect(costs_read({ no_session: true, output: { ...text, format }, config })).toBe(true);
    }
  });

  it('is true when a budget applies (it prices each call before making it)', () => {
    for (const budget of [{ session_usd: 1 }, { day_usd: 5 }, { sender_day_usd: 2 }]) {
      const budgeted = make_config({ work_dir: '/tmp', budget });
      expect(costs_read({ no_session: true, output: text, config: budgeted })).toBe(true);
    }
  });
});
