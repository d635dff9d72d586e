import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Message } from '@lich/core';
import {
  type FakeServer,
  make_temp_dir,
  start_anthropic_server,
  start_openai_server,
  type TempDir,
} from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent.js';
import { make_config } from '../src/config/config_load.js';

let temp: TempDir;
let server: FakeServer | undefined;
let work_dir: string;

beforeEach(async () => {
  temp = await make_temp_dir({
    prefix: 'lich-prefix-',
    files: {
      'repo/AGENTS.md': `# Project rules\n${'Write tests first. Keep functions short.\n'.repeat(120)}`,
      'repo/notes.txt': 'the secret word is lich\n',
    },
  });
  work_dir = join(temp.path, 'repo');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await temp.cleanup();
});

type Body = { tools?: unknown[]; system?: unknown; messages: unknown[] };

/** The body without its `cache_control` markers: what must stay the same from one turn to the next. */
function unmarked(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, inner) =>
    key === 'cache_control' ? undefined : inner,
  );
}

/** The summary call of a compaction: offered no tools (Anthropic gets the used ones, uncallable). */
function is_summary(body: Body): boolean {
  return body.tools === undefined || (body as { tool_choice?: unknown }).tool_choice !== undefined;
}

async function two_runs(agent: Agent): Promise<void> {
  const handle = await agent.create_session();
  if (handle === null) throw new Error('no session');
  const first = await agent.run({ input: 'read notes.txt', session: handle });
  await agent.run({ input: 'and again', history: first.transcript as Message[], session: handle });
  await handle.close();
}

describe('a session prompt prefix stays byte-stable from turn to turn', () => {
  it('Anthropic: tools and system identical, each request extends the previous one, and it is read from the cache', async () => {
    server = await start_anthropic_server({ prompt_cache: true });
    server.enqueue(
      { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'The word is lich.' },
      { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'Still lich.' },
    );
    const agent = new Agent({
      config: make_config({
        work_dir,
        providers: [{ kind: 'anthropic', model: 'claude-test', base_url: server.base_url }],
      }),
      env: {},
      lich_version: '9.9.9',
      on_warning: () => undefined,
    });
    await two_runs(agent);
    await agent.close();
    const bodies = server.requests.map((request) => request.body as Body);
    expect(bodies).toHaveLength(4);
    const raw = server.requests.map((request) => request.raw_body);
    for (let index = 1; index < bodies.length; index++) {
      const before = bodies[index - 1] as Body;
      const after = bodies[index] as Body;
      // byte-identical tools and system, breakpoints included
      expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
      expect(JSON.stringify(after.system)).toBe(JSON.stringify(before.system));
      // the earlier messages come back unchanged, in order
      expect(unmarked(after.messages.slice(0, before.messages.length))).toEqual(
        unmarked(before.messages),
      );
      // and the raw bytes up to the first message are the same
      const head = (text: string) => text.slice(0, text.indexOf('"messages"'));
      expect(head(raw[index] as string)).toBe(head(raw[0] as string));
    }
    expect(JSON.stringify(bodies[0]?.system)).toContain('Write tests first.');
    const reads = server.bills.map((bill) => bill.cache_read_tokens);
    expect(reads[0]).toBe(0);
    for (const read of reads.slice(1)) expect(read).toBeGreaterThan(1024);
  });

  it('OpenAI: every request of a session carries its id as prompt_cache_key and starts with the previous one', async () => {
    server = await start_openai_server({ prompt_cache: true });
    server.enqueue(
      { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'The word is lich.' },
      { text: 'Still lich.' },
    );
    const agent = new Agent({
      config: make_config({
        work_dir,
        providers: [
          {
            kind: 'openai_compat',
            model: 'gpt-test',
            base_url: server.base_url,
            cache: { enabled: true },
          },
        ],
      }),
      env: {},
      lich_version: '9.9.9',
      on_warning: () => undefined,
    });
    await two_runs(agent);
    await agent.close();
    const bodies = server.requests.map(
      (request) => request.body as Body & { prompt_cache_key?: string },
    );
    expect(bodies).toHaveLength(3);
    const key = bodies[0]?.prompt_cache_key;
    expect(key).toMatch(/\S/);
    for (const body of bodies) expect(body.prompt_cache_key).toBe(key);
    for (let index = 1; index < bodies.length; index++) {
      const before = bodies[index - 1] as Body;
      const after = bodies[index] as Body;
      expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
      expect(JSON.stringify(after.messages.slice(0, before.messages.length))).toBe(
        JSON.stringify(before.messages),
      );
    }
    for (const bill of server.bills.slice(1)) expect(bill.cache_read_tokens).toBeGreaterThan(1024);
  });

  it('compaction excepted: tools and system stay cached, the history is written again from the summary', async () => {
    let calls = 0;
    server = await start_anthropic_server({
      prompt_cache: true,
      respond: (request) => {
        const body = request.body as Body;
        // the summary call offers no tools (the ones the history used are declared, not callable)
        if (is_summary(body)) return { text: 'Summary: big.txt was read several times.' };
        calls += 1;
        return calls < 8
          ? { tool_calls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] }
          : { text: 'The word is lich.' };
      },
    });
    // each read adds some 1,500 tokens: the history passes half the window after a few turns
    await writeFile(join(work_dir, 'big.txt'), 'a line of the big file, read again\n'.repeat(170));
    const agent = new Agent({
      config: make_config({
        work_dir,
        providers: [{ kind: 'anthropic', model: 'claude-test', base_url: server.base_url }],
        context_window: 8192,
        compression: { enabled: true, threshold: 0.5, keep_recent: 2 },
      }),
      env: {},
      lich_version: '9.9.9',
      on_warning: () => undefined,
    });
    await agent.run({ input: `read notes.txt ${'and think hard about it, '.repeat(150)}` });
    await agent.close();
    const loop = server.requests
      .map((request, index) => ({ body: request.body as Body, bill: server?.bills[index] }))
      .filter((entry) => !is_summary(entry.body));
    const summaries = server.requests.filter((request) => is_summary(request.body as Body));
    expect(summaries.length).toBeGreaterThan(0);
    let broke = 0;
    for (let index = 1; index < loop.length; index++) {
      const before = loop[index - 1]?.body as Body;
      const after = loop[index]?.body as Body;
      // tools and system never change, compaction or not: their cache holds
      expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
      expect(JSON.stringify(after.system)).toBe(JSON.stringify(before.system));
      expect(loop[index]?.bill?.cache_read_tokens).toBeGreaterThan(0);
      const extends_before =
        JSON.stringify(unmarked(after.messages.slice(0, before.messages.length))) ===
        JSON.stringify(unmarked(before.messages));
      if (!extends_before) broke += 1;
    }
    // the message prefix breaks only where a compaction replaced the middle of the history
    expect(broke).toBeGreaterThan(0);
    expect(broke).toBeLessThanOrEqual(summaries.length);
  });
});
