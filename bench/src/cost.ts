/**
 * What caching saves: the input tokens a provider bills, weighted by Anthropic's price ratios
 * (a fresh token 1×, read from the cache 0.1×, written to it 1.25× with the 5-minute TTL or 2× with
 * the 1-hour one), with prompt caching on against off, against the testkit's billing fakes (the
 * Anthropic fake writes and reads at `cache_control` breakpoints with the minimum cacheable
 * length; the OpenAI fake caches prefixes automatically). Two workloads:
 * - a 20-turn coding task: one `lich` run (an `Agent` with the default system prompt, an
 *   AGENTS.md and the builtin tools) reading a source file each turn, then answering;
 * - a 20-message gateway conversation: a `SessionHost` as a gateway runs it (history capped at 40
 *   messages), one short question and answer per message, with the 1-hour TTL a gateway should use.
 * Target: weighted input with caching on ≤ 0.3× off, on Anthropic. On OpenAI the same coding task
 * reports the share of the prompt read from the cache and whether every request began with the
 * previous one byte for byte (the prefix is stable), which is what its automatic cache needs.
 * `BENCH_COST_TURNS` changes the number of turns and messages (default 20).
 */
import type { SessionHost } from '@lich/agent';
import { Agent, create_session_host, make_config, type ProviderEntry } from '@lich/agent';
import type { Message } from '@lich/core';
import {
  type FakeBill,
  type FakeServer,
  make_temp_dir,
  type RecordedRequest,
  type ScriptStep,
  start_anthropic_server,
  start_openai_server,
} from '@lich/testkit';
import type { BenchRow } from './types.js';

const TURNS = Number(process.env.BENCH_COST_TURNS ?? 20);
const TARGET = 0.3;

/** A source file of the work dir: what each turn of the coding task reads (about 600 tokens). */
const SOURCE = Array.from(
  { length: 60 },
  (_, line) =>
    `export function step_${line}(value: number): number { return value * ${line} + 1; }`,
).join('\n');

const AGENTS_MD = [
  '# Project rules',
  '',
  ...Array.from(
    { length: 40 },
    (_, line) =>
      `- Rule ${line + 1}: keep functions short, name things plainly, test what you change.`,
  ),
].join('\n');

/** Input tokens weighted by Anthropic's price ratios. */
function weighted(bills: readonly FakeBill[], write_ratio: number): number {
  let total = 0;
  for (const bill of bills) {
    const fresh = bill.input_tokens - bill.cache_read_tokens - bill.cache_write_tokens;
    total += fresh + bill.cache_read_tokens * 0.1 + bill.cache_write_tokens * write_ratio;
  }
  return total;
}

function user_count(request: RecordedRequest): number {
  const messages = (request.body as { messages?: { role: string }[] } | undefined)?.messages ?? [];
  return messages.filter((message) => message.role === 'user').length;
}

/** The coding task's model: a `read_file` call a turn, then an answer. */
function coding_model(turns: number): (request: RecordedRequest) => ScriptStep {
  let calls = 0;
  return () => {
    calls += 1;
    if (calls < turns) {
      return {
        text: `Reading part ${calls}.`,
        tool_calls: [{ name: 'read_file', arguments: { path: `src/part_${calls % 5}.ts` } }],
      };
    }
    return { text: 'Done: every part reads its value the same way.' };
  };
}

async function coding_task(
  kind: 'anthropic' | 'openai_compat',
  cache: boolean,
): Promise<{ server: FakeServer; requests: RecordedRequest[] }> {
  const files: Record<string, string> = { 'AGENTS.md': AGENTS_MD };
  for (let part = 0; part < 5; part++) files[`src/part_${part}.ts`] = `// part ${part}\n${SOURCE}`;
  const temp = await make_temp_dir({ prefix: 'lich-bench-cost-', files });
  const requests: RecordedRequest[] = [];
  const respond = coding_model(TURNS);
  const server =
    kind === 'anthropic'
      ? await start_anthropic_server({ prompt_cache: true, respond })
      : await start_openai_server({ prompt_cache: true, respond });
  try {
    const provider: ProviderEntry = {
      kind,
      model: kind === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4.1',
      base_url: server.base_url,
      cache: { enabled: cache },
    };
    const agent = new Agent({
      config: make_config({ work_dir: temp.path, providers: [provider], max_turns: TURNS + 5 }),
      env: {},
      on_warning: () => undefined,
      checkpoints: false,
    });
    await agent.run({ input: 'Read every part of src/ and tell me how they differ.' });
    await agent.close();
    requests.push(...server.requests);
    return { server, requests };
  } finally {
    await server.close();
    await temp.cleanup();
  }
}

async function wait_turn(host: SessionHost, session_id: string, turn_id: string): Promise<void> {
  await new Promise<void>((resolve) => {
    let off: (() => void) | undefined;
    host
      .subscribe(session_id, (event) => {
        if (event.type === 'turn.completed' && event.payload.turn_id === turn_id) {
          off?.();
          resolve();
        }
      })
      .then((subscription) => {
        off = () => subscription.unsubscribe();
      });
  });
}

async function gateway_conversation(cache: boolean): Promise<FakeBill[]> {
  const temp = await make_temp_dir({
    prefix: 'lich-bench-cost-gw-',
    files: { 'AGENTS.md': AGENTS_MD },
  });
  const server = await start_anthropic_server({
    prompt_cache: true,
    respond: (request) => ({
      text: `Answer ${user_count(request)}: here is a short, friendly reply with a detail or two.`,
    }),
  });
  try {
    const agent = new Agent({
      config: make_config({
        work_dir: temp.path,
        providers: [
          {
            kind: 'anthropic',
            model: 'claude-sonnet-4-5',
            base_url: server.base_url,
            cache: { enabled: cache, ttl: '1h' },
          },
        ],
      }),
      env: {},
      on_warning: () => undefined,
      checkpoints: false,
    });
    // as a gateway runs it: one session per conversation, 40 messages of history at most
    const host = create_session_host({ agent, approval_mode: 'default', history_limit: 40 });
    const session = await host.create({ title: 'bench:conversation' });
    for (let message = 1; message <= TURNS; message++) {
      const ticket = await host.prompt(
        session.session_id,
        `Message ${message}: what do you think about point ${message} of the plan?`,
      );
      await wait_turn(host, session.session_id, ticket.turn_id);
    }
    await host.shutdown({ deadline_ms: 1000 });
    await agent.close();
    return [...server.bills];
  } finally {
    await server.close();
    await temp.cleanup();
  }
}

/** Whether each request's messages begin with the previous request's, byte for byte. */
function prefix_stable(requests: readonly RecordedRequest[]): boolean {
  for (let index = 1; index < requests.length; index++) {
    const before = (requests[index - 1]?.body as { messages: Message[]; tools?: unknown }) ?? {};
    const after = (requests[index]?.body as { messages: Message[]; tools?: unknown }) ?? {};
    if (JSON.stringify(before.tools) !== JSON.stringify(after.tools)) return false;
    const head = JSON.stringify(after.messages.slice(0, before.messages.length));
    if (head !== JSON.stringify(before.messages)) return false;
  }
  return true;
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const on = await coding_task('anthropic', true);
  const off = await coding_task('anthropic', false);
  const on_bills = on.server.bills;
  const off_bills = off.server.bills;
  const coding_on = weighted(on_bills, 1.25);
  const coding_off = weighted(off_bills, 1.25);
  rows.push({
    bench: 'cost',
    metric: `Anthropic, ${TURNS}-turn coding task: weighted input tokens (${on_bills.length} calls)`,
    lich: coding_on,
    baseline: coding_off,
    baseline_name: 'caching off',
    unit: 'tokens',
    ratio: coding_on / coding_off,
    target: `ratio <= ${TARGET}`,
    pass: coding_on / coding_off <= TARGET,
  });
  const gateway_on_bills = await gateway_conversation(true);
  const gateway_off_bills = await gateway_conversation(false);
  const gateway_on = weighted(gateway_on_bills, 2);
  const gateway_off = weighted(gateway_off_bills, 2);
  rows.push({
    bench: 'cost',
    metric: `Anthropic, ${TURNS}-message gateway conversation (1h TTL): weighted input tokens`,
    lich: gateway_on,
    baseline: gateway_off,
    baseline_name: 'caching off',
    unit: 'tokens',
    ratio: gateway_on / gateway_off,
    target: `ratio <= ${TARGET}`,
    pass: gateway_on / gateway_off <= TARGET,
  });
  const openai = await coding_task('openai_compat', true);
  const input = openai.server.bills.reduce((sum, bill) => sum + bill.input_tokens, 0);
  const cached = openai.server.bills.reduce((sum, bill) => sum + bill.cache_read_tokens, 0);
  const stable = prefix_stable(openai.requests);
  rows.push({
    bench: 'cost',
    metric: `OpenAI, ${TURNS}-turn coding task: share of the prompt read from the cache; prefix byte-stable: ${stable ? 'yes' : 'NO'}`,
    lich: cached / input,
    unit: 'share',
    target: 'prefix byte-stable',
    pass: stable,
  });
  return rows;
}
