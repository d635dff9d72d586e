import { describe, expect, it } from 'vitest';
import { TurnWatch } from './turn_watch.js';

describe('TurnWatch', () => {
  it('says why a turn ended in the one vocabulary', () => {
    const watch = new TurnWatch();
    expect(watch.stop_reason('final')).toBe('final');
    expect(watch.stop_reason('aborted')).toBe('aborted');
    expect(watch.stop_reason('max_turns')).toBe('max_turns');
    // a BudgetStop without a budget event (a ChatFn of the caller's) counts as the turn budget
    expect(watch.stop_reason('budget')).toBe('max_turns');
    watch.hear({ type: 'budget', level: 'stop', message: 'over $1', scope: 'session', used: 1 });
    expect(watch.stop_reason('budget')).toBe('budget');
    expect(watch.budget_scope).toBe('session');
    watch.hear({
      type: 'llm_end',
      turn: 1,
      message: { role: 'assistant', content: 'no' },
      finish_reason: 'content_filter',
      duration_ms: 1,
    });
    expect(watch.stop_reason('final')).toBe('refusal');
  });

  it('keeps the context gauge: the loop estimate of a request, plus what the run appends', () => {
    const watch = new TurnWatch();
    watch.hear({ type: 'llm_start', turn: 1, grace: false, context_tokens: 100 });
    watch.hear({
      type: 'llm_end',
      turn: 1,
      message: { role: 'assistant', content: 'x'.repeat(40) },
      finish_reason: 'stop',
      duration_ms: 1,
    });
    expect(watch.context_tokens).toBe(110);
  });
});
