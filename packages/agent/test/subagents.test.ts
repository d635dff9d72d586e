/**
 * The `task` tool: subagents as child runs of the same Agent, with a fresh context, their own
 * tools, the parent's permissions, limits, abort, usage roll-up and recorded sessions.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { content_text, type Message } from '@lich/core';
import { read_session_messages } from '@lich/session';
import { to_chat_result } from '@lich/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../src/agent.js';
import type { HostEvent } from '../src/host/session_host_types.js';
import {
  collector,
  make_host,
  type ScriptedCall,
  scripted_chat,
  until_aborted,
} from './host_support.js';

let cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const USAGE = { input_tokens: 10, output_tokens: 1 };

function first_user(call: ScriptedCall): string {
  return content_text(call.messages.find((message) => message.role === 'user')?.content ?? '');
}

function is_child(call: ScriptedCall): boolean {
  return first_user(call).startsWith('job ');
}

function task(prompt: string, subagent_type?: string) {
  return {
    name: 'task',
    arguments: { description: prompt, prompt, ...(subagent_type ? { subagent_type } : {}) },
  };
}

/** Opens a session on `host`, prompts it once and waits for the turn's end. */
async function one_turn(host: Awaited<ReturnType<typeof make_host>>['host'], input: string) {
  const { session_id } = await host.create();
  const seen = collector();
  await host.subscribe(session_id, seen.listener);
  const ended = seen.next('turn.completed');
  await host.prompt(session_id, input);
  return { session_id, seen, end: await ended };
}

async function setup(
  handler: Parameters<typeof scripted_chat>[0],
  config: Record<string, unknown> = {},
) {
  const chat = scripted_chat(handler);
  const made = await make_host(chat, { config });
  cleanup.push(async () => {
    await made.host.shutdown({ deadline_ms: 1_000 });
    await made.temp.cleanup();
  });
  return { chat, ...made };
}

function tool_results(messages: readonly Message[]): string[] {
  return messages.flatMap((message) =>
    message.role === 'tool' ? [content_text(message.content)] : [],
  );
}

describe('subagents (task)', () => {
  it('runs three in parallel with separate contexts; results come back in order; usage rolls up', async () => {
    let active = 0;
    let most = 0;
    const delays: Record<string, number> = { 'job A': 80, 'job B': 40, 'job C': 0 };
    const { chat, agent } = await setup(async (call) => {
      if (is_child(call)) {
        active += 1;
        most = Math.max(most, active);
        // all three meet here (a slow machine may start one late), then finish out of order
        for (let waited = 0; most < 3 && waited < 2_000; waited += 10) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await new Promise((resolve) => setTimeout(resolve, delays[first_user(call)]));
        active -= 1;
        return to_chat_result({ text: `result of ${first_user(call)}`, usage: USAGE });
      }
      if (tool_results(call.messages).length === 0) {
        return to_chat_result({
          tool_calls: [task('job A'), task('job B'), task('job C')],
          usage: USAGE,
        });
      }
      return to_chat_result({ text: tool_results(call.messages).join(' | '), usage: USAGE });
    });
    const result = await (agent as Agent).run({ input: 'parent secret: split the work' });
    expect(result.outcome.stopped_reason).toBe('final');
    const answers = tool_results(result.transcript);
    expect(answers.map((text) => /result of (job \w)/.exec(text)?.[1])).toEqual([
      'job A',
      'job B',
      'job C',
    ]);
    expect(most).toBe(3);
    // each child saw only its own job: its system prompt and one user message
    const children = chat.calls.filter(is_child);
    expect(children).toHaveLength(3);
    for (const call of children) {
      expect(call.messages.map((message) => message.role)).toEqual(['system', 'user']);
      expect(JSON.stringify(call.messages)).not.toContain('parent secret');
      expect(call.messages[0]?.content).toContain('You are a subagent of Lich');
      expect(call.tools.map((tool) => tool.name)).not.toContain('task');
      expect(call.tools.map((tool) => tool.name)).not.toContain('exit_plan_mode');
    }
    // 2 parent calls + 3 children
    expect(result.usage_total).toEqual({ input_tokens: 50, output_tokens: 5 });
  });

  it('keeps to subagents.max_concurrent; children are recorded with their parent and resumable', async () => {
    let active = 0;
    let most = 0;
    const { agent, work_dir } = await setup(
      async (call) => {
        if (is_child(call)) {
          active += 1;
          most = Math.max(most, active);
          await new Promise((resolve) => setTimeout(resolve, 20));
          active -= 1;
          return `done ${first_user(call)}`;
        }
        if (tool_results(call.messages).length === 0) {
          return to_chat_result({ tool_calls: [task('job 1'), task('job 2'), task('job 3')] });
        }
        return 'all done';
      },
      { subagents: { max_concurrent: 2 } },
    );
    const result = await (agent as Agent).run({ input: 'go' });
    expect(result.outcome.final).toBe('all done');
    expect(most).toBe(2);
    const folder = join(work_dir, '.lich', 'sessions');
    const files = (await readdir(folder)).filter((name) => name.endsWith('.jsonl'));
    expect(files).toHaveLength(4);
    const parent_id = JSON.parse(
      (await readFile(result.session_path as string, 'utf8')).split('\n')[0] as string,
    ).id;
    const children = [];
    for (const name of files) {
      const start = JSON.parse(
        (await readFile(join(folder, name), 'utf8')).split('\n')[0] as string,
      );
      if (start.parent_session_id === parent_id) children.push(join(folder, name));
    }
    expect(children).toHaveLength(3);
    const resumed = await read_session_messages(children[0] as string);
    expect(resumed.at(-1)).toMatchObject({ role: 'assistant' });
    expect(String(resumed.at(-1)?.content)).toMatch(/^done job \d$/);
  });

  it('a parent abort ends its children', async () => {
    const started: AbortSignal[] = [];
    const { agent } = await setup(async (call, options) => {
      if (is_child(call)) {
        if (options?.signal) started.push(options.signal);
        return until_aborted(options?.signal);
      }
      return to_chat_result({ tool_calls: [task('job x'), task('job y')] });
    });
    const controller = new AbortController();
    const running = (agent as Agent).run({ input: 'go', signal: controller.signal });
    while (started.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const result = await running;
    expect(result.outcome.stopped_reason).toBe('aborted');
    expect(started.every((signal) => signal.aborted)).toBe(true);
  });

  it('holds the depth limit: a child gets no task tool and is refused one; max_depth 2 allows one level more', async () => {
    const handler = (call: ScriptedCall) => {
      const results = tool_results(call.messages);
      if (first_user(call) === 'job grandchild') return 'grandchild answer';
      if (is_child(call)) {
        if (results.length === 0) return to_chat_result({ tool_calls: [task('job grandchild')] });
        return `child saw: ${results[0]}`;
      }
      if (results.length === 0) return to_chat_result({ tool_calls: [task('job child')] });
      return results[0] as string;
    };
    const shallow = await setup(handler);
    const refused = await (shallow.agent as Agent).run({ input: 'go', session: false });
    expect(refused.outcome.final).toContain("unknown tool 'task'");
    const child_tools = shallow.chat.calls.filter(is_child)[0]?.tools.map((tool) => tool.name);
    expect(child_tools).not.toContain('task');

    const deeper = await setup(handler, { subagents: { max_depth: 2 } });
    const nested = await (deeper.agent as Agent).run({ input: 'go', session: false });
    expect(nested.outcome.final).toContain('grandchild answer');
    const grandchild = deeper.chat.calls.find((call) => first_user(call) === 'job grandchild');
    expect(grandchild?.tools.map((tool) => tool.name)).not.toContain('task');
  });

  it('uses a custom subagent type from .lich/agents/*.md: its prompt, its tools', async () => {
    const { agent, chat, work_dir } = await setup((call) => {
      if (is_child(call)) return 'REVIEWED';
      if (tool_results(call.messages).length === 0) {
        return to_chat_result({
          tool_calls: [task('job review', 'reviewer'), task('job x', 'nobody')],
        });
      }
      return tool_results(call.messages).join('\n');
    });
    await mkdir(join(work_dir, '.lich', 'agents'), { recursive: true });
    await writeFile(
      join(work_dir, '.lich', 'agents', 'reviewer.md'),
      '---\nname: reviewer\ndescription: Reviews a change\ntools: read_file, grep\nmodel: inherit\n---\nYou review code and answer REVIEWED.\n',
    );
    const result = await (agent as Agent).run({ input: 'review it', session: false });
    expect(result.outcome.final).toContain("Subagent 'reviewer' answered");
    expect(result.outcome.final).toContain(
      "There is no subagent type 'nobody'. Known: general, reviewer.",
    );
    const child = chat.calls.find(is_child);
    expect(
      content_text(child?.messages[0]?.content ?? '').startsWith(
        'You review code and answer REVIEWED.',
      ),
    ).toBe(true);
    expect(child?.tools.map((tool) => tool.name)).toEqual(['read_file', 'grep']);
  });

  it('on the host: subagent events carry parent_session_id, and the child usage counts in the session', async () => {
    const { host } = await setup((call) => {
      if (is_child(call)) return to_chat_result({ text: 'child answer', usage: USAGE });
      if (tool_results(call.messages).length === 0) {
        return to_chat_result({ tool_calls: [task('job one')], usage: USAGE });
      }
      return to_chat_result({ text: 'parent answer', usage: USAGE });
    });
    const { session_id } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener);
    const ended = seen.next('turn.completed');
    await host.prompt(session_id, 'delegate');
    const end = (await ended).payload as { final: string; usage: unknown };
    expect(end.final).toBe('parent answer');
    const started = seen.of('subagent.started')[0] as HostEvent | undefined;
    expect(started?.payload).toMatchObject({
      parent_session_id: session_id,
      description: 'job one',
    });
    const child_id = (started?.payload as { session_id: string } | undefined)?.session_id ?? '';
    expect(child_id).not.toBe(session_id);
    expect(seen.of('subagent.completed')[0]?.payload).toMatchObject({
      ok: true,
      session_id: child_id,
    });
    expect(end.usage).toEqual({ input_tokens: 30, output_tokens: 3 });
    // the child is a session like any other: the host can load it
    const history = await host.history(child_id);
    expect(history.at(-1)).toMatchObject({ role: 'assistant', content: 'child answer' });
    // a list (serve's session.list) says whose child it is
    const listed = await host.list();
    expect(listed.find((info) => info.session_id === child_id)?.parent_session_id).toBe(session_id);
    expect(listed.find((info) => info.session_id === session_id)).not.toHaveProperty(
      'parent_session_id',
    );
  });

  it("on the host: a child's cost counts in the session's, which stays known", async () => {
    // $1 per million tokens either way: each call of 10 in and 1 out costs $0.000011
    const priced = { usage: USAGE, model: 'priced-model' };
    const { host } = await setup(
      (call) => {
        if (is_child(call)) return to_chat_result({ text: 'child answer', ...priced });
        if (tool_results(call.messages).length === 0) {
          return to_chat_result({ tool_calls: [task('job one')], ...priced });
        }
        return to_chat_result({ text: 'parent answer', ...priced });
      },
      { prices: { 'priced-model': { input: 1, output: 1 } } },
    );
    const { seen } = await one_turn(host, 'delegate');
    const completed = seen.of('subagent.completed')[0]?.payload as { cost_usd: number | null };
    expect(completed.cost_usd).toBeCloseTo(0.000011, 12);
    const last = seen.of('usage.update').at(-1)?.payload as { cost_total_usd: number | null };
    expect(last.cost_total_usd).toBeCloseTo(0.000033, 12);
  });

  it('with a grandchild: every call counts once in the session, and the run result holds them all', async () => {
    // $1 per million tokens either way: each call of 10 in and 1 out costs $0.000011
    const priced = { usage: USAGE, model: 'priced-model' };
    const handler = (call: ScriptedCall) => {
      const results = tool_results(call.messages);
      if (first_user(call) === 'job grandchild') {
        return to_chat_result({ text: 'grandchild answer', ...priced });
      }
      const job = first_user(call) === 'job child' ? 'job grandchild' : 'job child';
      if (results.length === 0) return to_chat_result({ tool_calls: [task(job)], ...priced });
      return to_chat_result({ text: `saw: ${results[0]}`, ...priced });
    };
    // two calls each for the parent and the child, one for the grandchild
    const config = {
      subagents: { max_depth: 2 },
      prices: { 'priced-model': { input: 1, output: 1 } },
    };
    const { host } = await setup(handler, config);
    const { seen, end } = await one_turn(host, 'delegate');
    const completed = seen
      .of('subagent.completed')
      .map((event) => event.payload as { depth: number; usage: { input_tokens: number } });
    expect(completed.map((payload) => payload.depth).sort()).toEqual([1, 2]);
    // the child's completion holds the grandchild's usage: the session counts it once
    expect((end.payload as { usage: unknown }).usage).toEqual({
      input_tokens: 50,
      output_tokens: 5,
    });
    const last = seen.of('usage.update').at(-1)?.payload as { cost_total_usd: number | null };
    expect(last.cost_total_usd).toBeCloseTo(0.000055, 12);

    const direct = await setup(handler, config);
    const result = await (direct.agent as Agent).run({ input: 'delegate', session: false });
    expect(result.usage_total).toEqual({ input_tokens: 50, output_tokens: 5 });
    expect(result.cost_usd).toBeCloseTo(0.000055, 12);
  });

  it('on the host: what a child does reaches the parent stream as subagent.activity', async () => {
    const { host } = await setup((call) => {
      if (is_child(call)) {
        if (tool_results(call.messages).length === 0) {
          return to_chat_result({ tool_calls: [{ name: 'glob', arguments: { pattern: '*.md' } }] });
        }
        return 'child answer';
      }
      if (tool_results(call.messages).length === 0) {
        return to_chat_result({ tool_calls: [task('job one')] });
      }
      return 'parent answer';
    });
    const { session_id, seen } = await one_turn(host, 'delegate');
    const started = seen.of('subagent.started')[0]?.payload as { tool_call_id: string };
    const activity = seen.of('subagent.activity').map((event) => event.payload);
    // the child asks the model, starts glob, asks the model again
    expect(activity).toMatchObject([
      { tool: null, tool_count: 0, parent_session_id: session_id },
      { tool: 'glob', args: { pattern: '*.md' }, tool_count: 1 },
      { tool: null, tool_count: 1 },
    ]);
    for (const payload of activity) {
      expect(payload).toMatchObject({ tool_call_id: started.tool_call_id });
    }
    // in order: started, the activity, completed
    const types = seen.events
      .map((event) => event.type)
      .filter((type) => type.startsWith('subagent.'));
    expect(types).toEqual([
      'subagent.started',
      'subagent.activity',
      'subagent.activity',
      'subagent.activity',
      'subagent.completed',
    ]);
  });
});
