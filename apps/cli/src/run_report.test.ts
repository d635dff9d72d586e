import type { AgentEvent } from '@lich/core';
import { describe, expect, it } from 'vitest';
import { RunReport } from './run_report.js';

const call = { id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' };

/** A run: a failing read, then the answer. */
const RUN: AgentEvent[] = [
  { type: 'llm_start', turn: 1, grace: false, context_tokens: 0 },
  {
    type: 'llm_end',
    turn: 1,
    message: { role: 'assistant', content: 'Let me look.', tool_calls: [call] },
    finish_reason: 'tool_calls',
    duration_ms: 5,
    usage: { input_tokens: 100, output_tokens: 10 },
    provider: 'openai',
    model: 'gpt-a',
  },
  { type: 'tool_call_start', turn: 1, call, args: { path: 'a.txt' } },
  {
    type: 'tool_call_end',
    turn: 1,
    call,
    result: {
      ok: false,
      output: 'no such file',
      error: 'no such file: a.txt',
      duration_ms: 1200.4,
    },
    message: { role: 'tool', tool_call_id: 'c1', content: 'no such file' },
  },
  { type: 'llm_start', turn: 2, grace: false, context_tokens: 0 },
  {
    type: 'llm_end',
    turn: 2,
    message: { role: 'assistant', content: 'It is missing.' },
    finish_reason: 'stop',
    duration_ms: 5,
    usage: { input_tokens: 200, output_tokens: 20 },
    provider: 'openai',
    model: 'gpt-b',
  },
];

describe('RunReport', () => {
  it("sums the calls' usage and cost, names the last model, and lists each tool call", () => {
    const report = new RunReport({ kind: 'anthropic', model: 'first' }, (usage) =>
      usage.input_tokens === 100 ? 0.01 : 0.02,
    );
    for (const event of RUN) report.listener(event);
    const document = report.document({
      answer: 'It is missing.',
      stopped_reason: 'final',
      session_path: '/tmp/s.jsonl',
    });
    expect(document).toMatchObject({
      answer: 'It is missing.',
      stopped_reason: 'final',
      error: null,
      turns_used: 2,
      usage: { input_tokens: 300, output_tokens: 30 },
      budget_stop: null,
      provider: 'openai',
      model: 'gpt-b',
      session_path: '/tmp/s.jsonl',
      tool_calls: [
        {
          name: 'read_file',
          arguments: { path: 'a.txt' },
          ok: false,
          duration_ms: 1200,
          error: 'no such file: a.txt',
        },
      ],
    });
    expect(document.cost_usd).toBeCloseTo(0.03);
    // a subagent of the run: its tokens and dollars count too; one without a price, unknown
    report.subagent_ended({ input_tokens: 50, output_tokens: 5 }, 0.005);
    expect(report.usage).toMatchObject({ input_tokens: 350, output_tokens: 35 });
    expect(report.cost_usd).toBeCloseTo(0.035);
    report.subagent_ended({ input_tokens: 1, output_tokens: 1 }, null);
    expect(report.cost_usd).toBeNull();
  });

  it('names the first configured model before any call answered; an unpriced call makes the cost null', () => {
    const before = new RunReport({ kind: 'anthropic', model: 'first' });
    expect(
      before.document({ answer: null, stopped_reason: 'error', session_path: null }),
    ).toMatchObject({
      provider: 'anthropic',
      model: 'first',
      turns_used: 0,
      tool_calls: [],
    });
    const unpriced = new RunReport(undefined, () => null);
    for (const event of RUN) unpriced.listener(event);
    expect(unpriced.cost_usd).toBeNull();
  });

  it('says whether a command ran sandboxed, and which spending limit stopped the run', () => {
    const report = new RunReport(undefined);
    const end = (id: string, sandbox: string): AgentEvent => ({
      type: 'tool_call_end',
      turn: 1,
      call: { id, name: 'terminal', arguments: '{}' },
      result: { ok: true, output: '[exit code 0]', duration_ms: 30, sandbox },
      message: { role: 'tool', tool_call_id: id, content: '' },
    });
    report.listener(end('a', 'bwrap'));
    report.listener(end('b', 'none'));
    report.listener({
      type: 'budget',
      level: 'stop',
      message: 'the session budget is spent',
      scope: 'session',
    } as AgentEvent);
    expect(report.tool_calls.map((summary) => summary.sandbox)).toEqual(['bwrap', 'none']);
    expect(report.tool_calls[0]?.arguments).toBeNull();
    expect(report.budget_stop).toBe('the session budget is spent');
  });
});
