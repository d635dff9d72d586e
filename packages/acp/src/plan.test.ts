import { describe, expect, it } from 'vitest';
import { plan_entries } from './plan.js';

describe('plan_entries', () => {
  it('reads the usual shapes of a plan', () => {
    expect(
      plan_entries({
        todos: [
          { content: 'read the code', status: 'completed', priority: 'high' },
          { step: 'write the test', status: 'in_progress' },
          'ship it',
        ],
      }),
    ).toEqual([
      { content: 'read the code', status: 'completed', priority: 'high' },
      { content: 'write the test', status: 'in_progress', priority: 'medium' },
      { content: 'ship it', status: 'pending', priority: 'medium' },
    ]);
    expect(plan_entries({ plan: [{ title: 'a', status: 'DONE' }] })).toEqual([
      { content: 'a', status: 'completed', priority: 'medium' },
    ]);
  });

  it('is undefined without a list, and skips what it cannot read', () => {
    expect(plan_entries({ text: 'no list' })).toBeUndefined();
    expect(plan_entries('x')).toBeUndefined();
    expect(plan_entries({ entries: [42, { status: 'pending' }] })).toEqual([]);
  });
});
