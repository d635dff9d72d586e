import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { to_chat_result } from '@lich/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent.js';
import { make_config } from '../src/config/config_load.js';
import type { HostEvent } from '../src/host/session_host_types.js';
import { collector, last_user, make_host, scripted_chat } from './host_support.js';

let cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A chat that writes `notes.txt` on every prompt, then answers with the tool's outcome. */
function writing_chat() {
  return scripted_chat((call) => {
    const last = call.messages.at(-1);
    if (last?.role === 'tool') return `tool said: ${last.content}`;
    return to_chat_result({
      tool_calls: [
        { name: 'write_file', arguments: { path: 'notes.txt', content: last_user(call) } },
      ],
    });
  });
}

async function host_with(options: Parameters<typeof make_host>[1] = {}) {
  const made = await make_host(writing_chat(), options);
  cleanup.push(async () => {
    await made.host.shutdown({ deadline_ms: 1_000 });
    await made.temp.cleanup();
  });
  return made;
}

function payload<T>(event: HostEvent | undefined): T {
  return event?.payload as T;
}

describe('SessionHost permissions', () => {
  it('asks an approving subscriber; allow_once runs the call', async () => {
    const { host, work_dir } = await host_with();
    const { session_id } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener, { can_approve: true });
    const asked = seen.next('permission.request');
    const ended = seen.next('turn.completed');
    await host.prompt(session_id, 'first words');
    const request = payload<{ request_id: string; title: string; tool: string }>(await asked);
    expect(request).toMatchObject({ tool: 'write_file', title: 'write_file: notes.txt' });
    expect(await host.respond_permission(request.request_id, 'allow_once')).toBe(true);
    expect(await host.respond_permission(request.request_id, 'allow_once')).toBe(false);
    await ended;
    expect(await readFile(join(work_dir, 'notes.txt'), 'utf8')).toBe('first words');
    expect(payload(seen.of('permission.resolved')[0])).toMatchObject({
      request_id: request.request_id,
      option: 'allow_once',
    });
    expect(payload(seen.of('tool.end')[0])).toMatchObject({ ok: true });
  });

  it('a rejection blocks the call, and the model is told', async () => {
    const { host, work_dir } = await host_with();
    const { session_id } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener, { can_approve: true });
    const asked = seen.next('permission.request');
    const ended = seen.next('turn.completed');
    await host.prompt(session_id, 'nope');
    await host.respond_permission(
      payload<{ request_id: string }>(await asked).request_id,
      'reject_once',
    );
    const end = payload<{ final: string }>(await ended);
    expect(end.final).toMatch(/declined write_file: notes.txt/);
    expect(await readFile(join(work_dir, 'notes.txt'), 'utf8')).toBe('the secret word is lich\n');
    expect(payload(seen.of('tool.end')[0])).toMatchObject({ ok: false });
  });

  it('allow_always is remembered for the session and written to the project config', async () => {
    const warnings: string[] = [];
    const { host, work_dir } = await host_with({ on_warning: (text) => warnings.push(text) });
    const { session_id, path } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener, { can_approve: true });
    const asked = seen.next('permission.request');
    await host.prompt(session_id, 'one');
    await host.respond_permission(
      payload<{ request_id: string }>(await asked).request_id,
      'allow_always',
      {
        persist: true,
      },
    );
    await host.idle(session_id);
    await host.prompt(session_id, 'two');
    await host.idle(session_id);
    expect(seen.of('permission.request')).toHaveLength(1);
    expect(await readFile(join(work_dir, 'notes.txt'), 'utf8')).toBe('two');
    const config = JSON.parse(await readFile(join(work_dir, '.lich', 'config.json'), 'utf8'));
    expect(config).toEqual({ permissions: { allow: ['write_file(notes.txt)'] } });
    // the folder is not trusted: the kept rule counts in later sessions only once it is
    expect(warnings).toEqual([
      expect.stringMatching(
        /^the rule write_file\(notes\.txt\) was written to \.lich\/config\.json; it applies in later sessions once this folder is trusted/,
      ),
    ]);
    // the decisions are in the session file
    await host.close(session_id);
    const records = (await readFile(path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((record) => record.type === 'permission');
    expect(records).toMatchObject([
      { decision: 'allow', source: 'approver', option: 'allow_always', tool: 'write_file', run: 1 },
      { decision: 'allow', source: 'session', rule: 'write_file(notes.txt)', run: 2 },
    ]);
  });

  it('with no approver, ask means deny, and the message says how to allow', async () => {
    const { host, work_dir } = await host_with();
    const { session_id, path } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener); // cannot approve
    const ended = seen.next('turn.completed');
    await host.prompt(session_id, 'sneaky');
    const tool_end = payload<{ ok: boolean; output: string }>(await seen.next('tool.end'));
    await ended;
    expect(tool_end.ok).toBe(false);
    expect(tool_end.output).toContain('no one is here to approve it');
    expect(tool_end.output).toContain('"write_file(notes.txt)"');
    expect(seen.of('permission.request')).toEqual([]);
    expect(await readFile(join(work_dir, 'notes.txt'), 'utf8')).toContain('secret');
    await host.close(session_id);
    expect(await readFile(path as string, 'utf8')).toContain('"source":"no_approver"');
  });

  it('runs without asking in auto_edit, and the host approver answers when set', async () => {
    const answered: string[] = [];
    const { host, work_dir } = await host_with({
      approver: async (request) => {
        answered.push(request.title);
        return { option: 'allow_once' };
      },
    });
    const edit = await host.create({ approval_mode: 'auto_edit' });
    await host.prompt(edit.session_id, 'auto');
    await host.idle(edit.session_id);
    expect(await readFile(join(work_dir, 'notes.txt'), 'utf8')).toBe('auto');
    expect(answered).toEqual([]);
    const asking = await host.create();
    const seen = collector();
    await host.subscribe(asking.session_id, seen.listener);
    await host.prompt(asking.session_id, 'by owner');
    await host.idle(asking.session_id);
    expect(answered).toEqual(['write_file: notes.txt']);
    expect(seen.of('permission.request')).toHaveLength(1);
    expect(await readFile(join(work_dir, 'notes.txt'), 'utf8')).toBe('by owner');
  });

  it('an abort while a request waits resolves it cancelled', async () => {
    const { host } = await host_with();
    const { session_id } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener, { can_approve: true });
    const asked = seen.next('permission.request');
    const ended = seen.next('turn.completed');
    await host.prompt(session_id, 'wait');
    const request = payload<{ request_id: string }>(await asked);
    await host.abort(session_id);
    expect(payload(await ended)).toMatchObject({ stop_reason: 'aborted' });
    expect(payload(seen.of('permission.resolved')[0])).toMatchObject({
      request_id: request.request_id,
      option: 'cancelled',
    });
    expect(await host.respond_permission(request.request_id, 'allow_once')).toBe(false);
  });
});

describe('Agent.run permissions (the CLI path)', () => {
  it('asks the run approver in default mode; runs all in the default yolo', async () => {
    const made = await make_host(writing_chat());
    cleanup.push(() => made.temp.cleanup());
    const agent = new Agent({
      config: make_config({ work_dir: made.work_dir }),
      chat: writing_chat(),
      on_warning: () => undefined,
    });
    const titles: string[] = [];
    const asked = await agent.run({
      input: 'asked',
      approval_mode: 'default',
      approver: async (request) => {
        titles.push(request.title);
        return { option: 'reject_once' };
      },
    });
    expect(titles).toEqual(['write_file: notes.txt']);
    expect(asked.outcome.final).toMatch(/declined/);
    const plain = await agent.run({ input: 'plain' });
    expect(plain.outcome.final).toMatch(/^tool said: (?!.*declined)/);
    expect(await readFile(join(made.work_dir, 'notes.txt'), 'utf8')).toBe('plain');
    const session = await readFile(plain.session_path as string, 'utf8');
    expect(session).toContain('"type":"permission"');
    await agent.close();
  });
});
