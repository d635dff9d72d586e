/**
 * Plan mode on the real SessionHost: reads run, a write is refused until the user approves a plan
 * (`exit_plan_mode`); changes asked for go back to the model; approval moves the session on.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { content_text } from '@lich/core';
import { to_chat_result } from '@lich/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostEvent } from '../src/host/session_host_types.js';
import { collector, make_host, scripted_chat } from './host_support.js';

let cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function payload<T>(event: HostEvent | undefined): T {
  return event?.payload as T;
}

const WRITE = { name: 'write_file', arguments: { path: 'notes.txt', content: 'planned change' } };

/**
 * The model: tries to write, then proposes a plan; when the plan is declined it proposes a second
 * one; once approved, it writes, then answers with the last tool result.
 */
function planning_chat() {
  let plans = 0;
  return scripted_chat((call) => {
    const last = call.messages.at(-1);
    const tool_results = call.messages.filter((message) => message.role === 'tool').length;
    if (tool_results === 0) {
      return to_chat_result({
        tool_calls: [WRITE, { name: 'read_file', arguments: { path: 'notes.txt' } }],
      });
    }
    if (
      last?.role === 'tool' &&
      content_text(last.content).startsWith('The user approved the plan')
    ) {
      return to_chat_result({ tool_calls: [WRITE] });
    }
    if (last?.role === 'tool' && /^(Replaced|Wrote|Created)/.test(content_text(last.content)))
      return `done: ${last.content}`;
    plans += 1;
    return to_chat_result({
      tool_calls: [
        { name: 'exit_plan_mode', arguments: { plan: `plan ${plans}: write notes.txt` } },
      ],
    });
  });
}

describe('plan mode on the host', () => {
  it('refuses a write until the plan is approved; changes go back to the model', async () => {
    const made = await make_host(planning_chat());
    cleanup.push(async () => {
      await made.host.shutdown({ deadline_ms: 1_000 });
      await made.temp.cleanup();
    });
    const { host, work_dir } = made;
    const before = await readFile(join(work_dir, 'notes.txt'), 'utf8');
    const { session_id } = await host.create({ approval_mode: 'plan' });
    const seen = collector();
    await host.subscribe(session_id, seen.listener, { can_approve: true });
    const first_plan = seen.next('plan.proposed');
    const ended = seen.next('turn.completed');
    await host.prompt(session_id, 'change the notes');

    // the write was refused by the mode, the read ran, nothing was asked
    const proposed = payload<{ request_id: string; plan: string }>(await first_plan);
    expect(proposed.plan).toBe('plan 1: write notes.txt');
    const [write_end, read_end] = seen
      .of('tool.end')
      .map((event) => payload<{ name: string; ok: boolean; output: string }>(event));
    expect(write_end).toMatchObject({ name: 'write_file', ok: false });
    expect(write_end?.output).toContain('plan mode');
    expect(read_end).toMatchObject({ name: 'read_file', ok: true });
    expect(await readFile(join(work_dir, 'notes.txt'), 'utf8')).toBe(before);
    const requests = seen
      .of('permission.request')
      .map((event) =>
        payload<{ tool: string; request_id: string; preview?: { text: string } }>(event),
      );
    expect(requests.map((request) => request.tool)).toEqual(['exit_plan_mode']);
    expect(requests[0]?.request_id).toBe(proposed.request_id);
    expect(requests[0]?.preview?.text).toBe('plan 1: write notes.txt');

    // changes asked for: the model gets them, the session stays in plan mode
    const second_plan = seen.next('plan.proposed');
    await host.respond_permission(proposed.request_id, 'reject_once', {
      note: 'also keep a backup',
    });
    const second = payload<{ request_id: string; plan: string }>(await second_plan);
    expect(second.plan).toBe('plan 2: write notes.txt');
    const declined = seen
      .of('tool.end')
      .map((event) => payload<{ name: string; output: string }>(event))
      .find((end) => end.name === 'exit_plan_mode');
    expect(declined?.output).toContain('also keep a backup');
    expect((await host.get(session_id)).approval_mode).toBe('plan');
    expect(await readFile(join(work_dir, 'notes.txt'), 'utf8')).toBe(before);

    // approved with "allow always": auto_edit, and the write runs without another question
    await host.respond_permission(second.request_id, 'allow_always');
    const end = payload<{ final: string }>(await ended);
    expect(end.final).toMatch(/^done:/);
    expect(await readFile(join(work_dir, 'notes.txt'), 'utf8')).toBe('planned change');
    expect((await host.get(session_id)).approval_mode).toBe('auto_edit');
    expect(seen.of('permission.request')).toHaveLength(2);
    const modes = seen
      .of('session.info')
      .map((event) => payload<{ approval_mode: string }>(event).approval_mode);
    expect(modes).toContain('auto_edit');
  });
});
