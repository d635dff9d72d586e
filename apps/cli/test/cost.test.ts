import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, start_anthropic_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { make_sandbox, run_lich, type Sandbox } from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;

beforeEach(async () => {
  sandbox = await make_sandbox({
    'notes.txt': 'The launch code is 4711.\n',
    'AGENTS.md': `# Rules\n${'Keep answers short and check your work twice.\n'.repeat(100)}`,
  });
  server = await start_anthropic_server({ prompt_cache: true });
  await mkdir(join(sandbox.work_dir, '.lich'), { recursive: true });
  await writeFile(
    join(sandbox.work_dir, '.lich', 'config.json'),
    JSON.stringify({
      providers: [{ kind: 'anthropic', model: 'claude-sonnet-4-5', base_url: server.base_url }],
    }),
  );
});

afterEach(async () => {
  await server.close();
  await sandbox.cleanup();
});

const run = (args: string[]) =>
  run_lich(args, { cwd: sandbox.work_dir, env: { ...sandbox.env, ANTHROPIC_API_KEY: 'sk-test' } });

type RunEnd = { type: string; usage_total: Record<string, number>; cost_total_usd: number | null };

async function session_totals(): Promise<{ input: number; read: number; cost: number }> {
  const dir = join(sandbox.work_dir, '.lich', 'sessions');
  const totals = { input: 0, read: 0, cost: 0 };
  for (const name of (await readdir(dir)).filter((file) => file.endsWith('.jsonl'))) {
    const records = (await readFile(join(dir, name), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RunEnd);
    const end = records.findLast((record) => record.type === 'run_end');
    totals.input += end?.usage_total.input_tokens ?? 0;
    totals.read += end?.usage_total.cache_read_tokens ?? 0;
    totals.cost += end?.cost_total_usd ?? 0;
  }
  return totals;
}

describe('what a run costs, from the CLI', () => {
  it('shows dollars next to tokens, stops at --max-budget-usd, and lich usage sums the sessions', async () => {
    server.enqueue(
      { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'The code is 4711.' },
    );
    const first = await run(['--json', '-v', 'what is the code?']);
    expect(first.code).toBe(0);
    const document = JSON.parse(first.stdout) as Record<string, unknown>;
    expect(document.cost_usd).toBeGreaterThan(0);
    expect(document.usage).toMatchObject({ cache_read_tokens: expect.any(Number) });
    // -v: each call's tokens, the cached part and the dollars
    expect(first.stderr).toMatch(/tokens in \(\d+ cached.*\), \d+ out, \$0\.\d+/);

    // a budget smaller than one call's worst case: no request is made
    const requests = server.requests.length;
    const stopped = await run(['--json', '--max-budget-usd', '0.001', 'again']);
    expect(stopped.code).toBe(1);
    expect(server.requests.length).toBe(requests);
    expect(JSON.parse(stopped.stdout)).toMatchObject({
      stopped_reason: 'budget',
      budget_stop: expect.stringContaining('session budget of $0.0010 would be crossed'),
    });
    expect(stopped.stderr).toContain('raise --max-budget-usd');

    server.enqueue({ text: 'Still 4711.' });
    expect((await run(['what again?'])).code).toBe(0);

    const usage = await run(['usage', '--json']);
    expect(usage.code).toBe(0);
    const report = JSON.parse(usage.stdout) as {
      total: { usage: Record<string, number>; cost_usd: number; cache_hit_ratio: number };
      by_model: { key: string }[];
      by_session: unknown[];
    };
    const totals = await session_totals();
    expect(report.total.usage.input_tokens).toBe(totals.input);
    expect(report.total.usage.cache_read_tokens).toBe(totals.read);
    expect(report.total.cost_usd).toBeCloseTo(totals.cost, 12);
    expect(report.total.cache_hit_ratio).toBeGreaterThan(0);
    expect(report.by_model.map((row) => row.key)).toEqual(['anthropic/claude-sonnet-4-5']);
    // the stopped run made no model call: two sessions cost something
    expect(report.by_session).toHaveLength(2);

    const text = await run(['usage']);
    expect(text.stdout).toMatch(/By model:\n {2}anthropic\/claude-sonnet-4-5 .* \$0\.\d+/);
    const list = await run(['sessions', 'list']);
    expect(list.stdout).toMatch(/in, \d+ out, \$0\.\d+/);
  });
  it("counts a subagent's tokens and dollars in the one-shot's --json", async () => {
    server.enqueue(
      { tool_calls: [{ name: 'task', arguments: { description: 'look', prompt: 'job: look' } }] },
      { text: 'child answer' },
      { text: 'done' },
    );
    const result = await run(['--json', 'delegate a job']);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as {
      usage: { input_tokens: number; output_tokens: number };
      cost_usd: number;
    };
    // three calls billed: the parent's two and the child's one
    expect(server.bills).toHaveLength(3);
    const billed = server.bills.reduce((sum, bill) => sum + bill.input_tokens, 0);
    expect(document.usage.input_tokens).toBe(billed);
    // the dollars the parent's and the child's session files recorded, together
    expect(document.cost_usd).toBeCloseTo((await session_totals()).cost, 9);
  });

  it("counts a grandchild's tokens and dollars once in the one-shot's --json", async () => {
    await writeFile(
      join(sandbox.work_dir, '.lich', 'config.json'),
      JSON.stringify({
        providers: [{ kind: 'anthropic', model: 'claude-sonnet-4-5', base_url: server.base_url }],
        subagents: { max_depth: 2 },
      }),
    );
    const task = (prompt: string) => ({
      tool_calls: [{ name: 'task', arguments: { description: prompt, prompt } }],
    });
    // the parent asks a child, the child asks a grandchild; each answers in turn
    server.enqueue(
      task('job: look'),
      task('job: look closer'),
      { text: 'grandchild answer' },
      { text: 'child answer' },
      { text: 'done' },
    );
    const result = await run(['--json', 'delegate a job']);
    expect(result.code, result.stderr).toBe(0);
    const document = JSON.parse(result.stdout) as {
      usage: { input_tokens: number };
      cost_usd: number;
    };
    expect(server.bills).toHaveLength(5);
    const billed = server.bills.reduce((sum, bill) => sum + bill.input_tokens, 0);
    expect(document.usage.input_tokens).toBe(billed);
    expect(document.cost_usd).toBeCloseTo((await session_totals()).cost, 9);
  });
});
