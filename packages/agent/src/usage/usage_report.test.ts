import type { SessionRecord } from '@lich/session';
import { describe, expect, it } from 'vitest';
import { PriceBook } from '../cost/price_book.js';
import { usage_report } from './usage_report.js';

function call(
  at: string,
  model: string,
  usage: { input_tokens: number; output_tokens: number; cache_read_tokens?: number },
  cost_usd?: number | null,
): SessionRecord {
  return {
    v: 1,
    at,
    type: 'message',
    run: 1,
    index: 1,
    source: 'llm',
    message: { role: 'assistant', content: 'ok' },
    usage,
    provider: 'anthropic',
    model,
    ...(cost_usd === undefined ? {} : { cost_usd }),
  } as SessionRecord;
}

describe('usage_report', () => {
  it('sums by day, model and session, with the cache hit ratio', () => {
    const report = usage_report(
      [
        {
          id: 'a',
          records: [
            call(
              '2026-12-04T10:00:00Z',
              'm1',
              { input_tokens: 100, output_tokens: 10, cache_read_tokens: 80 },
              0.5,
            ),
            call('2026-12-05T10:00:00Z', 'm1', { input_tokens: 100, output_tokens: 10 }, 0.25),
          ],
        },
        {
          id: 'b',
          records: [call('2026-12-05T11:00:00Z', 'm2', { input_tokens: 50, output_tokens: 5 }, 1)],
        },
      ],
      undefined,
    );
    expect(report.total).toMatchObject({ calls: 3, cost_usd: 1.75 });
    expect(report.total.usage).toEqual({
      input_tokens: 250,
      output_tokens: 25,
      cache_read_tokens: 80,
    });
    expect(report.total.cache_hit_ratio).toBeCloseTo(80 / 250, 9);
    expect(report.by_day.map((row) => [row.key, row.cost_usd])).toEqual([
      ['2026-12-04', 0.5],
      ['2026-12-05', 1.25],
    ]);
    expect(report.by_model.map((row) => row.key)).toEqual(['anthropic/m2', 'anthropic/m1']);
    expect(report.by_session.map((row) => [row.key, row.calls])).toEqual([
      ['b', 1],
      ['a', 2],
    ]);
  });

  it('prices calls recorded before prices were, and says unknown for an unpriced model', () => {
    const prices = new PriceBook({ m1: { input: 1_000_000, output: 0 } });
    const report = usage_report(
      [
        {
          id: 'a',
          records: [call('2026-12-05T10:00:00Z', 'm1', { input_tokens: 2, output_tokens: 0 })],
        },
        {
          id: 'b',
          records: [
            call('2026-12-05T10:00:00Z', 'm9', { input_tokens: 2, output_tokens: 0 }, null),
          ],
        },
      ],
      prices,
    );
    expect(report.by_session.find((row) => row.key === 'a')?.cost_usd).toBe(2);
    expect(report.by_session.find((row) => row.key === 'b')?.cost_usd).toBeNull();
    expect(report.total.cost_usd).toBeNull();
  });
});
