import { join } from 'node:path';
import { AgentEmitter, type AgentEvent, type BudgetEvent } from '@lich/core';
import { type FakeChatStep, fake_chat, make_temp_dir, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../agent.js';
import { make_config } from '../config/config_load.js';
import { guard_budget } from './budget_guard.js';
import { MemoryBudgetLedger } from './budget_ledger.js';
import { load_price_book } from './price_book.js';

let temp: TempDir;
let work_dir: string;

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-budget-', files: { 'repo/a.txt': 'a\n' } });
  work_dir = join(temp.path, 'repo');
});
afterEach(async () => {
  await temp.cleanup();
});

// $1 per thousand tokens, in and out: a call of 500 in + 100 out costs $0.60; its worst case
// (the prompt estimate plus max_tokens 1000) a little over $1
const PRICES = { 'anthropic/claude-x': { input: 1000, output: 1000 } };
const PROVIDERS = [{ kind: 'anthropic', model: 'claude-x', max_tokens: 1000 }];

function tool_turns(count: number): FakeChatStep[] {
  return Array.from({ length: count }, () => ({
    tool_calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }],
    usage: { input_tokens: 500, output_tokens: 100 },
    provider: 'anthropic',
    model: 'claude-x',
  }));
}

function agent_with(chat: ReturnType<typeof fake_chat>, budget: Record<string, number>) {
  return new Agent({
    config: make_config({ work_dir, providers: PROVIDERS, prices: PRICES, budget }),
    chat,
    env: {},
    lich_version: '9.9.9',
    on_warning: () => undefined,
  });
}

describe('budgets', () => {
  it('stops a run before the call that would cross the budget', async () => {
    const chat = fake_chat(tool_turns(10));
    const agent = agent_with(chat, {});
    const events: AgentEvent[] = [];
    const result = await agent.run({
      input: 'go',
      max_budget_usd: 5,
      on_event: (event) => events.push(event),
    });
    await agent.close();
    expect(result.outcome.stopped_reason).toBe('budget');
    // calls at $0.60 each, and a worst case of about $2 (the system prompt and tools, plus
    // max_tokens): the run stops once the next worst case would cross $5
    expect(chat.calls.length).toBeGreaterThanOrEqual(2);
    expect(chat.calls.length).toBeLessThan(10);
    expect(result.cost_usd).toBeCloseTo(0.6 * chat.calls.length, 6);
    expect(result.cost_usd).toBeLessThanOrEqual(5);
    const budget = events.filter((event): event is BudgetEvent => event.type === 'budget');
    expect(budget.at(-1)).toMatchObject({ level: 'stop', scope: 'session' });
    expect(budget.at(-1)?.message).toContain('session budget of $5.00 would be crossed');
    // the session records the refusal as the run's end
    const end = events.find((event) => event.type === 'run_end');
    expect(end).toMatchObject({ stopped_reason: 'budget' });
  });

  it('never lets two parallel runs on one budget overshoot it together', async () => {
    const ledger = new MemoryBudgetLedger();
    const make = () => {
      const chat = fake_chat(tool_turns(20), { delay_ms: 5 });
      return {
        chat,
        agent: new Agent({
          config: make_config({
            work_dir,
            providers: PROVIDERS,
            prices: PRICES,
            budget: { day_usd: 4 },
          }),
          chat,
          env: {},
          lich_version: '9.9.9',
          on_warning: () => undefined,
          budget_ledger: ledger,
        }),
      };
    };
    const one = make();
    const two = make();
    const [a, b] = await Promise.all([
      one.agent.run({ input: 'one' }),
      two.agent.run({ input: 'two' }),
    ]);
    await Promise.all([one.agent.close(), two.agent.close()]);
    expect(a.outcome.stopped_reason).toBe('budget');
    expect(b.outcome.stopped_reason).toBe('budget');
    const spent = (a.cost_usd ?? 0) + (b.cost_usd ?? 0);
    expect(spent).toBeLessThanOrEqual(4);
    expect(spent).toBeCloseTo(0.6 * (one.chat.calls.length + two.chat.calls.length), 6);
    const day = `day:${work_dir}:${new Date().toISOString().slice(0, 10)}`;
    expect(await ledger.spent(day)).toBeCloseTo(spent, 6);
  });

  it('refuses to run on a budget when the model has no price', async () => {
    const chat = fake_chat(tool_turns(1));
    const agent = new Agent({
      config: make_config({ work_dir, providers: [{ kind: 'ollama', model: 'llama3.2' }] }),
      chat,
      env: {},
      lich_version: '9.9.9',
      on_warning: () => undefined,
    });
    const result = await agent.run({ input: 'go', max_budget_usd: 1 });
    await agent.close();
    expect(result.outcome.stopped_reason).toBe('budget');
    expect(chat.calls).toHaveLength(0);
    expect(result.cost_usd).toBe(0);
  });

  it('reports dollars for a priced model and unknown (null) for an unpriced one', async () => {
    const priced = agent_with(
      fake_chat([
        {
          text: 'ok',
          usage: { input_tokens: 1000, output_tokens: 0 },
          provider: 'anthropic',
          model: 'claude-x',
        },
      ]),
      {},
    );
    expect((await priced.run({ input: 'hi' })).cost_usd).toBeCloseTo(1, 6);
    await priced.close();
    const unpriced = agent_with(
      fake_chat([
        {
          text: 'ok',
          usage: { input_tokens: 10, output_tokens: 1 },
          provider: 'ollama',
          model: 'qwen',
        },
      ]),
      {},
    );
    expect((await unpriced.run({ input: 'hi' })).cost_usd).toBeNull();
    await unpriced.close();
  });

  it('warns once when 80% of a limit is spent', async () => {
    const ledger = new MemoryBudgetLedger();
    const events: AgentEvent[] = [];
    const emitter = new AgentEmitter();
    emitter.on((event) => events.push(event));
    const chat = guard_budget(
      fake_chat(
        Array.from({ length: 10 }, () => ({
          text: 'ok',
          usage: { input_tokens: 1000, output_tokens: 0 },
          provider: 'anthropic',
          model: 'claude-x',
        })),
      ),
      {
        ledger,
        limits: [{ scope: 'session', key: 's', limit_usd: 10 }],
        prices: await load_price_book(PRICES),
        provider: 'anthropic',
        model: 'claude-x',
        max_tokens: 10,
        emitter,
      },
    );
    for (let call = 0; call < 9; call++) {
      await chat([{ role: 'user', content: 'hi' }], []).catch(() => undefined);
    }
    const budget = events.filter((event): event is BudgetEvent => event.type === 'budget');
    // $1 a call: the warning after the 8th, the 10th refused (its worst case would cross $10)
    expect(budget.map((event) => event.level)).toEqual(['warning']);
    expect(budget[0]?.message).toBe('80% of the session budget is spent ($8.00 of $10.00)');
    expect(await ledger.spent('s')).toBeCloseTo(9, 6);
  });

  it("holds a work dir's daily budget across processes, from today's session files", async () => {
    const config = make_config({
      work_dir,
      providers: PROVIDERS,
      prices: PRICES,
      budget: { day_usd: 3 },
      // the one tool the script calls: the worst case of a call stays near $1
      tools_enabled: ['read_file'],
    });
    const first_chat = fake_chat(
      tool_turns(3).concat([
        {
          text: 'done',
          usage: { input_tokens: 500, output_tokens: 100 },
          provider: 'anthropic',
          model: 'claude-x',
        },
      ]),
    );
    const first = new Agent({
      config,
      chat: first_chat,
      env: {},
      lich_version: '9.9.9',
      on_warning: () => undefined,
    });
    const one = await first.run({ input: 'one' });
    await first.close();
    expect(one.cost_usd).toBeGreaterThan(0);
    // a second process: a new agent and ledger, the same work dir
    const second_chat = fake_chat(tool_turns(10));
    const second = new Agent({
      config,
      chat: second_chat,
      env: {},
      lich_version: '9.9.9',
      on_warning: () => undefined,
    });
    const two = await second.run({ input: 'two' });
    await second.close();
    expect(two.outcome.stopped_reason).toBe('budget');
    // without what the first spent, the second would have made as many calls as the first
    expect(second_chat.calls.length).toBeLessThan(first_chat.calls.length);
    expect((one.cost_usd ?? 0) + (two.cost_usd ?? 0)).toBeLessThanOrEqual(3);
  });
});
