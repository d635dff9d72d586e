import { empty_usage } from '@lich/core';
import { describe, expect, it } from 'vitest';
import type { SessionRecord } from './records.js';
import { before_last_run, is_retry_of, state_of } from './state.js';

const at = '2026-01-01T00:00:00.000Z';

function run_start(run: number, kept: number, input: string, request_id?: string): SessionRecord {
  return {
    v: 1,
    at,
    type: 'run_start',
    run,
    max_turns: 10,
    seeded_count: kept + 1,
    kept,
    input,
    ...(request_id === undefined ? {} : { request_id }),
  };
}

function said(
  run: number,
  index: number,
  role: 'user' | 'assistant',
  content: string,
): SessionRecord {
  return {
    v: 1,
    at,
    type: 'message',
    run,
    index,
    source: role === 'user' ? 'seed' : 'llm',
    message: { role, content },
  };
}

function run_end(run: number, messages_count: number): SessionRecord {
  return {
    v: 1,
    at,
    type: 'run_end',
    run,
    stopped_reason: 'final',
    turns_used: 1,
    messages_count,
    usage: empty_usage(),
    usage_total: empty_usage(),
  };
}

describe('the last run, and what retries it', () => {
  const finished = [
    run_start(1, 0, 'hi', 'req-1'),
    said(1, 0, 'user', 'hi'),
    said(1, 1, 'assistant', 'hello'),
    run_end(1, 2),
  ];

  it('is the last run, ended, with the history before it', () => {
    const state = state_of(finished);
    expect(state.last_run).toEqual({
      run: 1,
      kept: 0,
      input: 'hi',
      request_id: 'req-1',
      ended: true,
    });
    const last = before_last_run(state);
    expect(last).toEqual({ input: 'hi', request_id: 'req-1', ended: true, history: [] });
    if (last === null) throw new Error('no last run');
    // the same request again is a retry; another request, or none, is not
    expect(is_retry_of(last, 'hi', 'req-1')).toBe(true);
    expect(is_retry_of(last, 'hi', 'req-2')).toBe(false);
    expect(is_retry_of(last, 'hi', undefined)).toBe(false);
  });

  it('is not ended when its process died mid-run; the same input retries it when no ids were given', () => {
    const state = state_of([
      ...finished,
      run_start(2, 2, 'how are you?'),
      said(2, 2, 'user', 'how are you?'),
      said(2, 3, 'assistant', 'half an ans'),
    ]);
    expect(state.last_run).toEqual({ run: 2, kept: 2, input: 'how are you?', ended: false });
    const last = before_last_run(state);
    expect(last?.history).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
    if (last === null) throw new Error('no last run');
    expect(is_retry_of(last, 'how are you?', undefined)).toBe(true);
    expect(is_retry_of(last, 'something else', undefined)).toBe(false);
    expect(is_retry_of({ ...last, ended: true }, 'how are you?', undefined)).toBe(false);
  });

  it('reads as the retry left it once the retry ended', () => {
    const state = state_of([
      ...finished,
      run_start(2, 2, 'how are you?'),
      said(2, 2, 'user', 'how are you?'),
      run_start(3, 2, 'how are you?'),
      said(3, 2, 'user', 'how are you?'),
      said(3, 3, 'assistant', 'fine'),
      run_end(3, 4),
    ]);
    expect(state.last_run?.ended).toBe(true);
    expect(state.slots.map((message) => message?.content)).toEqual([
      'hi',
      'hello',
      'how are you?',
      'fine',
    ]);
  });
});

describe('prompts, checkpoints and rewinds', () => {
  const checkpoint = (
    run: number,
    kind: 'before_prompt' | 'after_prompt',
    id: string,
  ): SessionRecord => ({
    v: 1,
    at,
    type: 'checkpoint',
    run,
    kind,
    checkpoint_id: id,
  });
  const three_runs = [
    run_start(1, 0, 'one'),
    said(1, 0, 'user', 'one'),
    checkpoint(1, 'before_prompt', 'c1'),
    said(1, 1, 'assistant', 'done one'),
    checkpoint(1, 'after_prompt', 'c1a'),
    run_end(1, 2),
    run_start(2, 2, 'two'),
    said(2, 2, 'user', 'two'),
    said(2, 3, 'assistant', 'done two'),
    run_end(2, 4),
    run_start(3, 4, 'three'),
    said(3, 4, 'user', 'three'),
    checkpoint(3, 'before_prompt', 'c3'),
    said(3, 5, 'assistant', 'done three'),
    checkpoint(3, 'after_prompt', 'c3a'),
    run_end(3, 6),
  ];

  it('lists each prompt with where its conversation starts and its checkpoints', () => {
    const state = state_of(three_runs);
    expect(state.prompts.map((p) => [p.run, p.input, p.kept, p.before, p.after])).toEqual([
      [1, 'one', 0, 'c1', 'c1a'],
      [2, 'two', 2, undefined, undefined],
      [3, 'three', 4, 'c3', 'c3a'],
    ]);
    expect(state.checkpoints.map((c) => c.checkpoint_id)).toEqual(['c1', 'c1a', 'c3', 'c3a']);
  });

  it('cuts the conversation and its prompts on a rewind, and puts them back on a redo', () => {
    const rewound = state_of([
      ...three_runs,
      { v: 1, at, type: 'rewind', run: 2, kept: 2, restored: 'c3', before: 'r1', after: 'r1a' },
    ]);
    expect(rewound.slots.map((m) => m?.content)).toEqual(['one', 'done one']);
    expect(rewound.prompts.map((p) => p.run)).toEqual([1]);
    expect(rewound.last_rewind).toMatchObject({ run: 2, before: 'r1', after: 'r1a', runs: 3 });
    expect(rewound.checkpoints.map((c) => c.kind).slice(-2)).toEqual([
      'before_rewind',
      'after_rewind',
    ]);
    const cut = rewound.last_rewind?.cut ?? [];
    const redone = state_of([
      ...three_runs,
      { v: 1, at, type: 'rewind', run: 2, kept: 2, restored: 'c3', before: 'r1', after: 'r1a' },
      {
        v: 1,
        at,
        type: 'rewind',
        run: 2,
        redo: true,
        kept: 2,
        messages: cut.filter((m) => m !== undefined),
        restored: 'r1',
      },
    ]);
    expect(redone.slots.map((m) => m?.content)).toEqual([
      'one',
      'done one',
      'two',
      'done two',
      'three',
      'done three',
    ]);
    expect(redone.prompts.map((p) => p.run)).toEqual([1, 2, 3]);
    expect(redone.last_rewind).toBeUndefined();
  });

  it('marks prompts whose conversation a compression folded away', () => {
    const state = state_of([
      ...three_runs,
      {
        v: 1,
        at,
        type: 'compress_end',
        run: 3,
        ok: true,
        before_count: 6,
        after_count: 4,
        from: 1,
        to: 4,
        replaced: 3,
        summary_message: { role: 'user', content: 'summary' },
      },
    ]);
    expect(state.prompts.map((p) => [p.run, p.kept, p.conversation])).toEqual([
      [1, 0, true],
      [2, 2, false],
      [3, 2, true],
    ]);
  });
});
