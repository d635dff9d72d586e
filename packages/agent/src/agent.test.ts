import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentEvent, Message } from '@lich/core';
import { content_text } from '@lich/core';
import { read_session_messages } from '@lich/session';
import { fake_chat, make_temp_dir, type TempDir } from '@lich/testkit';
import { BUILTIN_TOOL_NAMES } from '@lich/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent.js';
import { make_config } from './config/config_load.js';

let temp: TempDir;
let work_dir: string;

beforeEach(async () => {
  temp = await make_temp_dir({
    prefix: 'lich-agent-',
    files: { 'repo/project/notes.txt': 'the secret word is lich\n' },
  });
  work_dir = join(temp.path, 'repo', 'project');
});

afterEach(async () => {
  await temp.cleanup();
});

async function session_records(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('Agent.run', () => {
  it('offers the model the builtins in DESIGN order, whatever order their modules loaded in', async () => {
    const chat = fake_chat([{ text: 'ok' }]);
    const agent = new Agent({ config: make_config({ work_dir }), chat, lich_version: '9.9.9' });
    await agent.run({ input: 'hi' });
    // BUILTIN_TOOLS is DESIGN's order (builtins.test.ts pins it)
    expect(
      chat.calls[0]?.tools.map((tool) => tool.name).slice(0, BUILTIN_TOOL_NAMES.length),
    ).toEqual(BUILTIN_TOOL_NAMES);
    const some = new Agent({
      config: make_config({ work_dir, tools_enabled: ['run_tests', 'glob', 'read_file'] }),
      chat: fake_chat([{ text: 'ok' }]),
      lich_version: '9.9.9',
    });
    expect(some.registry.names()).toEqual(['read_file', 'glob', 'run_tests']);
    await agent.close();
    await some.close();
  });

  it('runs a tool call then answers, sums usage and records the session', async () => {
    const chat = fake_chat([
      {
        tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
        usage: { input_tokens: 100, output_tokens: 10, cache_read_tokens: 40 },
      },
      { text: 'The secret word is lich.', usage: { input_tokens: 150, output_tokens: 8 } },
    ]);
    const agent = new Agent({ config: make_config({ work_dir }), chat, lich_version: '9.9.9' });
    const events: AgentEvent['type'][] = [];
    agent.on((event) => events.push(event.type));
    const history: Message[] = [{ role: 'user', content: 'earlier' }];
    const result = await agent.run({ input: 'what is the secret word?', history });

    expect(result.outcome.stopped_reason).toBe('final');
    expect(result.outcome.final).toBe('The secret word is lich.');
    expect(result.usage_total).toEqual({
      input_tokens: 250,
      output_tokens: 18,
      cache_read_tokens: 40,
    });
    expect(history).toEqual([{ role: 'user', content: 'earlier' }]);
    const tool_message = result.transcript.find((message) => message.role === 'tool');
    expect(tool_message?.content).toContain('the secret word is lich');
    expect(events[0]).toBe('run_start');
    expect(events.at(-1)).toBe('run_end');
    expect(chat.calls[0]?.tools.map((tool) => tool.name)).toContain('read_file');

    expect(result.session_path).toMatch(/\.lich\/sessions\/.+\.jsonl$/);
    const records = await session_records(result.session_path as string);
    expect(records[0]).toMatchObject({ type: 'session_start', lich_version: '9.9.9', work_dir });
    expect(records.map((record) => record.type)).toContain('run_start');
    expect(records.at(-1)).toMatchObject({ type: 'run_end', stopped_reason: 'final' });
    const messages = await read_session_messages(result.session_path as string);
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it('offers only what tools_enabled allows, and no tools at all for []', async () => {
    const chat = fake_chat(['one', 'two']);
    const some = new Agent({
      config: make_config({ work_dir, tools_enabled: ['read_*', 'list_dir'] }),
      chat,
    });
    await some.run({ input: 'x', session: false });
    expect(chat.calls[0]?.tools.map((tool) => tool.name).sort()).toEqual(['list_dir', 'read_file']);
    const none = new Agent({ config: make_config({ work_dir, tools_enabled: [] }), chat });
    await none.run({ input: 'x', session: false });
    expect(chat.calls[1]?.tools).toEqual([]);
    expect(none.registry.names()).toEqual([]);
  });

  it('lets a tool named like a builtin take its place, in the same position', async () => {
    const builtin = new Agent({ config: make_config({ work_dir }), chat: fake_chat([]) });
    const own_read = {
      name: 'read_file',
      description: 'read through the editor',
      parameters: z.object({ path: z.string() }),
      execute: async () => 'from the editor',
    };
    const extra = { ...own_read, name: 'extra_tool', description: 'an extra' };
    const agent = new Agent({
      config: make_config({ work_dir }),
      chat: fake_chat([]),
      tools: [own_read, extra] as never[],
    });
    expect(agent.registry.names()).toEqual([...builtin.registry.names(), 'extra_tool']);
    expect(agent.registry.get('read_file')?.description).toBe('read through the editor');
    const result = await agent.executor.execute('read_file', { path: 'notes.txt' });
    expect(result.output).toBe('from the editor');
    expect(
      () => new Agent({ config: make_config({ work_dir }), tools: [extra, extra] as never[] }),
    ).toThrow(/already registered/);
  });

  it('adds AGENTS.md from the work dir and its parents up to the repository root', async () => {
    await mkdir(join(temp.path, 'repo', '.git'));
    await writeFile(join(temp.path, 'AGENTS.md'), 'outside the repository: never read');
    await writeFile(join(temp.path, 'repo', 'AGENTS.md'), 'Repository rule: use tabs.');
    await writeFile(join(work_dir, 'AGENTS.md'), 'Project rule: answer in French.');
    const chat = fake_chat(['bonjour']);
    const agent = new Agent({
      config: make_config({ work_dir, system_prompt: 'You are a test.' }),
      chat,
    });
    await agent.run({ input: 'hi', session: false });
    const system = chat.calls[0]?.messages[0];
    expect(system?.role).toBe('system');
    const text = content_text(system?.content ?? '');
    expect(text.startsWith('You are a test.')).toBe(true);
    expect(text).toContain('Repository rule: use tabs.');
    expect(text).toContain('Project rule: answer in French.');
    expect(text.indexOf('Repository rule')).toBeLessThan(text.indexOf('Project rule'));
    expect(text).not.toContain('never read');
  });

  it('ends aborted when the signal fires, and the session says so', async () => {
    const chat = fake_chat(['never seen'], { delay_ms: 5_000 });
    const agent = new Agent({ config: make_config({ work_dir }), chat });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await agent.run({ input: 'slow', signal: controller.signal });
    expect(result.outcome.stopped_reason).toBe('aborted');
    const records = await session_records(result.session_path as string);
    expect(records.at(-1)).toMatchObject({ type: 'run_end', stopped_reason: 'aborted' });
  });

  it('rejects with the model error, recording run_end with the error', async () => {
    const chat = fake_chat([new Error('anthropic (claude): HTTP 401: invalid x-api-key')]);
    const agent = new Agent({ config: make_config({ work_dir }), chat });
    let session_path = '';
    agent.on((event) => {
      if (event.type === 'run_start') session_path = 'started';
    });
    await expect(agent.run({ input: 'x' })).rejects.toThrow(/HTTP 401/);
    expect(session_path).toBe('started');
    const { list_sessions } = await import('@lich/session');
    const [summary] = await list_sessions(agent.config.session_dir);
    const records = await session_records(summary?.path as string);
    expect(records.at(-1)).toMatchObject({ type: 'run_end', stopped_reason: 'error' });
  });

  it('keeps one session across runs with a shared handle and separate usage per run', async () => {
    const chat = fake_chat([
      { text: 'first', usage: { input_tokens: 5, output_tokens: 1 } },
      { text: 'second', usage: { input_tokens: 7, output_tokens: 2 } },
    ]);
    const agent = new Agent({ config: make_config({ work_dir }), chat });
    const session = await agent.create_session();
    expect(session).not.toBeNull();
    const one = await agent.run({ input: 'a', session: session ?? false });
    const two = await agent.run({ input: 'b', history: one.transcript, session: session ?? false });
    await session?.close();
    expect(two.usage_total).toEqual({ input_tokens: 7, output_tokens: 2 });
    expect(two.session_path).toBe(one.session_path);
    const messages = await read_session_messages(two.session_path as string);
    expect(messages.filter((message) => message.role === 'user').map((m) => m.content)).toEqual([
      'a',
      'b',
    ]);
  });

  it('keeps parallel runs apart: each records and counts only its own events', async () => {
    const chat = fake_chat([
      { text: 'A', usage: { input_tokens: 1, output_tokens: 1 } },
      { text: 'B', usage: { input_tokens: 10, output_tokens: 10 } },
    ]);
    const agent = new Agent({ config: make_config({ work_dir }), chat });
    const [a, b] = await Promise.all([
      agent.run({ input: 'a', session: false }),
      agent.run({ input: 'b', session: false }),
    ]);
    expect(a.usage_total.input_tokens + b.usage_total.input_tokens).toBe(11);
    expect(a.usage_total.input_tokens).not.toBe(b.usage_total.input_tokens);
  });

  it('prices calls from the catalog unless every provider of the config is of a kind it has no prices for', async () => {
    const usage = { input_tokens: 100_000, output_tokens: 0 };
    const run_cost = async (kind: string) => {
      const agent = new Agent({
        config: make_config({ work_dir, providers: [{ kind, model: 'claude-sonnet-4-5' }] }),
        chat: fake_chat([{ text: 'ok', usage }], {
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
        }),
        lich_version: '9.9.9',
      });
      const result = await agent.run({ input: 'hi', session: false });
      await agent.close();
      return result.cost_usd;
    };
    // $3 per million input tokens (under the 200k-token tier)
    expect(await run_cost('anthropic')).toBeCloseTo(0.3, 6);
    // an Ollama-only chain never imports the catalog: a call it could price is unknown
    expect(await run_cost('ollama')).toBeNull();
  });

  it('prices from the config alone when built with price_catalog: false', async () => {
    const usage = { input_tokens: 100_000, output_tokens: 0 };
    const run_cost = async (model: string) => {
      const agent = new Agent({
        config: make_config({
          work_dir,
          providers: [{ kind: 'anthropic', model }],
          prices: { 'anthropic/house-model': { input: 2, output: 4 } },
        }),
        chat: fake_chat([{ text: 'ok', usage }], { provider: 'anthropic', model }),
        price_catalog: false,
      });
      const result = await agent.run({ input: 'hi', session: false });
      await agent.close();
      return result.cost_usd;
    };
    // the catalog would price it at $0.30; without it the cost is unknown
    expect(await run_cost('claude-sonnet-4-5')).toBeNull();
    // the config's own price still applies: $2 per million input tokens
    expect(await run_cost('house-model')).toBeCloseTo(0.2, 6);
  });

  it('sends the first request before the price catalog is imported, and prices every call all the same', async () => {
    const usage = { input_tokens: 100_000, output_tokens: 0 };
    const run = async (options: { max_budget_usd?: number }) => {
      const prices_at_call: unknown[] = [];
      const agent: Agent = new Agent({
        config: make_config({
          work_dir,
          providers: [{ kind: 'anthropic', model: 'claude-sonnet-4-5' }],
        }),
        chat: async (_messages, _tools, chat_options) => {
          prices_at_call.push(agent.prices);
          chat_options?.on_delta?.({ kind: 'text', text: 'ok' });
          return {
            message: { role: 'assistant', content: 'ok' },
            finish_reason: 'stop',
            usage,
            provider: 'anthropic',
            model: 'claude-sonnet-4-5',
          };
        },
        lich_version: '9.9.9',
      });
      const result = await agent.run({ input: 'hi', session: false, ...options });
      await agent.close();
      return { prices_at_call, cost: result.cost_usd };
    };
    const plain = await run({});
    expect(plain.prices_at_call).toEqual([undefined]);
    expect(plain.cost).toBeCloseTo(0.3, 6);
    // a budget prices a call before making it: the prices come first
    const budgeted = await run({ max_budget_usd: 5 });
    expect(budgeted.prices_at_call[0]).toBeDefined();
    expect(budgeted.cost).toBeCloseTo(0.3, 6);
  });

  it('goes on without a session when the session folder cannot be created', async () => {
    await writeFile(join(work_dir, 'blocker'), 'a file, not a folder');
    const warnings: string[] = [];
    const agent = new Agent({
      config: make_config({ work_dir, session_dir: 'blocker/sessions' }),
      chat: fake_chat(['fine']),
      on_warning: (text) => warnings.push(text),
    });
    const result = await agent.run({ input: 'x' });
    expect(result.outcome.final).toBe('fine');
    expect(result.session_path).toBeNull();
    expect(warnings[0]).toMatch(/not recorded/);
  });
});

describe('missing_api_keys', () => {
  it('names unset keys of cloud providers only', async () => {
    const { missing_api_keys } = await import('./provider_chat.js');
    expect(
      missing_api_keys(
        [
          { kind: 'anthropic', model: 'c' },
          { kind: 'openai_compat', model: 'local', base_url: 'http://127.0.0.1:8000/v1' },
          { kind: 'openai_compat', model: 'g', api_key_env: 'MY_KEY' },
          { kind: 'ollama', model: 'l' },
        ],
        { MY_KEY: 'set' },
      ),
    ).toEqual(['ANTHROPIC_API_KEY is not set: anthropic (c) will refuse the requests']);
  });
});
