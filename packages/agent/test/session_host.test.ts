import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TempDir } from '@lich/testkit';
import { TINY_PNG_BASE64, to_chat_result } from '@lich/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionHostError } from '../src/host/session_host_error.js';
import type { HostEvent, SessionHost } from '../src/host/session_host_types.js';
import {
  collector,
  gate,
  last_user,
  make_host,
  scripted_chat,
  until_aborted,
} from './host_support.js';

let cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function host_with(chat: Parameters<typeof make_host>[0], options = {}) {
  const made = await make_host(chat, options);
  cleanup.push(async () => {
    await made.host.shutdown({ deadline_ms: 1_000 });
    await (made.temp as TempDir).cleanup();
  });
  return made;
}

function seqs(events: readonly HostEvent[]): number[] {
  return events.map((event) => event.seq);
}

function in_order(events: readonly HostEvent[]): boolean {
  return events.every(
    (event, index) => index === 0 || event.seq === (events[index - 1]?.seq ?? 0) + 1,
  );
}

describe('SessionHost', () => {
  it('streams two sessions in parallel, each in seq order', async () => {
    const both_started = gate();
    let started = 0;
    const chat = scripted_chat(async (call) => {
      started += 1;
      if (started === 2) both_started.open();
      await both_started.promise;
      return `echo ${last_user(call)}`;
    });
    const { host } = await host_with(chat);
    const a = await host.create();
    const b = await host.create();
    const seen_a = collector();
    const seen_b = collector();
    await host.subscribe(a.session_id, seen_a.listener);
    await host.subscribe(b.session_id, seen_b.listener);
    const done_a = seen_a.next('turn.completed');
    const done_b = seen_b.next('turn.completed');
    await host.prompt(a.session_id, 'alpha');
    await host.prompt(b.session_id, 'beta');
    // each run waits until both model calls are in flight: they ran in parallel
    const [end_a, end_b] = await Promise.all([done_a, done_b]);
    expect(end_a.payload).toMatchObject({ stop_reason: 'final', final: 'echo alpha' });
    expect(end_b.payload).toMatchObject({ stop_reason: 'final', final: 'echo beta' });
    for (const seen of [seen_a, seen_b]) {
      expect(in_order(seen.events)).toBe(true);
      expect(seen.events.every((event) => event.epoch === host.epoch)).toBe(true);
      const text = seen
        .of('message.delta')
        .map((event) => (event.payload as { text: string }).text);
      expect(text.join('')).toMatch(/^echo (alpha|beta)$/);
    }
    expect(seen_a.events.every((event) => event.session_id === a.session_id)).toBe(true);
    const types = seen_a.events.map((event) => event.type);
    expect(types.indexOf('turn.started')).toBeLessThan(types.indexOf('message.completed'));
    expect(types).toContain('usage.update');
  });

  it('usage.update says how long the call took (and who answered, when the router knows)', async () => {
    const { host } = await host_with(scripted_chat(async () => 'hello'));
    const { session_id } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener);
    const done = seen.next('turn.completed');
    await host.prompt(session_id, 'hi');
    await done;
    const update = seen.of('usage.update')[0]?.payload as {
      provider?: string;
      model?: string;
      duration_ms?: number;
    };
    // a scripted chat stands in for the router: nobody is named
    expect(update.provider).toBeUndefined();
    expect(update.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("an observer hears its own turn's loop events and error, and a throwing one breaks nothing", async () => {
    let calls = 0;
    const { host } = await host_with(
      scripted_chat(async (call) => {
        calls += 1;
        if (calls === 2) throw new Error('the model is down');
        return `echo ${last_user(call)}`;
      }),
    );
    const { session_id } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener);
    const heard: string[] = [];
    const failures: unknown[] = [];
    const first = seen.next('turn.completed');
    await host.prompt(session_id, 'one', {
      observer: {
        on_event: (event) => {
          heard.push(event.type);
          throw new Error('a broken observer');
        },
        on_error: (error) => failures.push(error),
      },
    });
    expect((await first).payload).toMatchObject({ stop_reason: 'final', final: 'echo one' });
    expect(heard[0]).toBe('run_start');
    expect(heard).toContain('llm_end');
    expect(heard.at(-1)).toBe('run_end');
    const count = heard.length;
    const second = seen.next('turn.completed');
    await host.prompt(session_id, 'two', {
      observer: { on_error: (error) => failures.push(error) },
    });
    expect((await second).payload).toMatchObject({
      stop_reason: 'error',
      error: 'the model is down',
    });
    // the first turn's observer heard nothing of the second
    expect(heard).toHaveLength(count);
    expect(failures).toHaveLength(1);
    expect((failures[0] as Error).message).toBe('the model is down');
  });

  it("usage.update's context gauge is core's estimate, and drops after a compaction (H3)", async () => {
    const chat = scripted_chat(async (call) =>
      // the summary call offers no tools; the answers are long so the history fills up
      call.tools.length === 0 ? 'short summary' : `long answer ${'z'.repeat(4_000)}`,
    );
    const { host } = await host_with(chat, {
      config: {
        // room for the system prompt and the tool definitions besides the history
        context_window: 10_000,
        compression: { enabled: true, threshold: 0.5, keep_recent: 2 },
      },
    });
    const { session_id } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener);
    const gauges: { tokens: number; compacted: boolean }[] = [];
    for (const prompt of ['one', 'two', 'three', 'four', 'five']) {
      const done = seen.next('turn.completed');
      const compactions = seen.of('compaction').length;
      await host.prompt(session_id, prompt);
      await done;
      const update = seen.of('usage.update').at(-1);
      gauges.push({
        tokens: (update?.payload as { context_tokens: number } | undefined)?.context_tokens ?? -1,
        compacted: seen.of('compaction').length > compactions,
      });
    }
    // it rises with each long answer
    expect(gauges[1]?.tokens).toBeGreaterThan(gauges[0]?.tokens as number);
    // and in the turn that compacted it shows the compacted history, under the threshold that
    // triggered the compaction (the old gauge kept counting the history from before it)
    const compacted = gauges.filter((gauge) => gauge.compacted);
    expect(compacted.length).toBeGreaterThan(0);
    for (const gauge of compacted) expect(gauge.tokens).toBeLessThan(5_000);
  });

  it('says how commands run from the first session.info on, once known (C46)', async () => {
    const chat = scripted_chat(() => 'ok');
    const off = await host_with(chat, { config: { sandbox: { mode: 'off' } } });
    expect((await off.host.create()).sandbox).toBe('off');
    const { host, agent } = await host_with(chat);
    const known = await agent.sandbox_kind();
    expect(['bwrap', 'sandbox-exec', 'none']).toContain(known);
    expect((await host.create()).sandbox).toBe(known);
  });

  it('with probe_sandbox false looks nothing up at the start, and learns the kind from a command', async () => {
    let calls = 0;
    const chat = scripted_chat(() => {
      calls += 1;
      if (calls > 1) return 'done';
      return {
        message: {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'c1', name: 'terminal', arguments: '{"command":"echo hi"}' }],
        },
        finish_reason: 'tool_calls',
      };
    });
    const { host, agent } = await host_with(chat, { probe_sandbox: false, approval_mode: 'yolo' });
    const session = await host.create();
    expect(session.sandbox).toBeUndefined();
    const seen = collector();
    await host.subscribe(session.session_id, seen.listener);
    const done = seen.next('turn.completed');
    await host.prompt(session.session_id, 'run it');
    await done;
    expect(seen.of('tool.end')[0]?.payload).toMatchObject({ ok: true });
    const kind = await agent.sandbox_kind();
    const told = seen.events.findIndex(
      (event) => event.type === 'session.info' && event.payload.sandbox !== undefined,
    );
    if (kind === 'none') {
      expect(told).toBe(-1);
    } else {
      // said before the line of the command that ran under it
      expect(seen.events[told]?.payload).toMatchObject({ sandbox: kind });
      expect(told).toBeLessThan(seen.events.findIndex((event) => event.type === 'tool.end'));
    }
  });

  it('replays k+1… exactly once to a subscriber that resubscribes after seq k', async () => {
    const chat = scripted_chat((call) => `answer to ${last_user(call)}`);
    const { host, agent } = await host_with(chat, { coalesce_ms: 0 });
    await agent.sandbox_kind(); // known before the session starts: no later session.info
    const { session_id } = await host.create();
    const first = collector();
    const subscription = await host.subscribe(session_id, first.listener, { after_seq: 0 });
    expect(subscription.replayed).toBe(1); // the session.info of create
    const ended = first.next('turn.completed');
    await host.prompt(session_id, 'one');
    await ended;
    const k = first.events[3]?.seq as number;
    const kept = first.events.filter((event) => event.seq <= k);
    subscription.unsubscribe();
    // more happens while it is away
    await host.prompt(session_id, 'two');
    await host.idle(session_id);
    const second = collector();
    const again = await host.subscribe(session_id, second.listener, {
      after_seq: k,
      epoch: host.epoch,
    });
    expect(again.truncated).toBe(false);
    expect(again.replayed).toBe(second.events.length);
    const all = [...kept, ...second.events];
    expect(seqs(all)).toEqual(Array.from({ length: all.length }, (_, index) => index + 1));
    expect(second.events[0]?.seq).toBe(k + 1);
    const live = second.next('turn.completed');
    await host.prompt(session_id, 'three');
    await live;
    expect(in_order(second.events)).toBe(true);
  });

  it('answers truncated when the ring moved past the asked seq, or the epoch is another', async () => {
    const chat = scripted_chat((call) => `a fairly long answer to ${last_user(call)}`);
    const { host } = await host_with(chat, { coalesce_ms: 0, ring_events: 8 });
    const { session_id } = await host.create();
    await host.prompt(session_id, 'fill the ring');
    await host.idle(session_id);
    const late = collector();
    const subscription = await host.subscribe(session_id, late.listener, { after_seq: 1 });
    expect(subscription).toMatchObject({ truncated: true, replayed: 0 });
    expect(late.events).toEqual([]);
    const restarted = await host.subscribe(session_id, () => undefined, {
      after_seq: 2,
      epoch: 'another-process',
    });
    expect(restarted.truncated).toBe(true);
    // and it still goes live
    const ended = late.next('turn.completed');
    await host.prompt(session_id, 'more');
    await ended;
  });

  it('puts a steer message in front of the model on the next call of the same run', async () => {
    const first_call = gate();
    const release = gate();
    const chat = scripted_chat(async (call) => {
      if (chat.calls.length === 1) {
        first_call.open();
        await release.promise;
        return to_chat_result({
          tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
        });
      }
      return `steered: ${last_user(call)}`;
    });
    const { host } = await host_with(chat);
    const { session_id } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener);
    const ended = seen.next('turn.completed');
    const ticket = await host.prompt(session_id, 'read the notes');
    await first_call.promise;
    await host.steer(session_id, 'and say it in French');
    release.open();
    const end = await ended;
    expect(chat.calls).toHaveLength(2);
    const second = chat.calls[1]?.messages ?? [];
    expect(second.at(-2)?.role).toBe('tool');
    expect(second.at(-1)).toEqual({ role: 'user', content: 'and say it in French' });
    expect(end.payload).toMatchObject({
      turn_id: ticket.turn_id,
      final: 'steered: and say it in French',
    });
    expect(seen.of('message.steered')[0]?.payload).toMatchObject({
      turn_id: ticket.turn_id,
      text: 'and say it in French',
    });
    expect(seen.of('turn.started')).toHaveLength(1);
    const tool_end = seen.of('tool.end')[0]?.payload as { ok: boolean; output: string };
    expect(tool_end.ok).toBe(true);
    expect(tool_end.output).toContain('lich');
  });

  it('runs a follow-up after the current run, and queues a busy prompt without interleaving', async () => {
    const release = gate();
    const called = gate();
    const chat = scripted_chat(async (call) => {
      if (chat.calls.length === 1) {
        called.open();
        await release.promise;
      }
      return `re: ${last_user(call)}`;
    });
    const { host } = await host_with(chat);
    const { session_id } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener);
    const first = await host.prompt(session_id, 'first');
    const follow = await host.follow_up(session_id, 'then this');
    const queued = await host.prompt(session_id, 'and finally', { client_request_id: 'r-3' });
    expect(first.queued).toBe(false);
    expect(follow.queued).toBe(true);
    expect(queued.queued).toBe(true);
    expect((await host.get(session_id)).queued).toBe(2);
    await called.promise;
    expect(chat.calls).toHaveLength(1);
    release.open();
    await host.idle(session_id);
    const turns = seen.events
      .filter((event) => event.type === 'turn.started' || event.type === 'turn.completed')
      .map((event) => `${event.type}:${(event.payload as { turn_id: string }).turn_id}`);
    expect(turns).toEqual([
      `turn.started:${first.turn_id}`,
      `turn.completed:${first.turn_id}`,
      `turn.started:${follow.turn_id}`,
      `turn.completed:${follow.turn_id}`,
      `turn.started:${queued.turn_id}`,
      `turn.completed:${queued.turn_id}`,
    ]);
    expect(seen.of('turn.started')[1]?.payload).toMatchObject({ kind: 'follow_up' });
    expect(seen.of('turn.started')[2]?.payload).toMatchObject({ client_request_id: 'r-3' });
    // each run saw the previous run's answer
    expect(chat.calls[1]?.messages.map((message) => message.content)).toContain('re: first');
    expect(chat.calls[2]?.messages.map((message) => message.content)).toContain('re: then this');
    expect((await host.history(session_id)).filter((m) => m.role === 'user')).toHaveLength(3);
  });

  it('a follow-up attaches its @path files as a prompt does; an interrupt gives back what was typed', async () => {
    const release = gate();
    const called = gate();
    const chat = scripted_chat(async (call) => {
      if (chat.calls.length === 1) {
        called.open();
        await release.promise;
      }
      return `re: ${last_user(call).slice(0, 20)}`;
    });
    const { host } = await host_with(chat);
    const { session_id } = await host.create();
    await host.prompt(session_id, 'first');
    await called.promise;
    await host.follow_up(session_id, 'explain @notes.txt', { attach_mentions: true });
    // taken back before it ran: the words typed, not the file they brought in
    const taken = await host.interrupt(session_id);
    expect(taken.queued).toEqual(['explain @notes.txt']);
    await host.idle(session_id);
    await host.follow_up(session_id, 'now explain @notes.txt', { attach_mentions: true });
    await host.idle(session_id);
    const sent = chat.calls.at(-1)?.messages.at(-1)?.content;
    expect(sent).toContain('now explain @notes.txt');
    expect(sent).toContain('<file path="notes.txt"');
    expect(sent).toContain('the secret word is lich');
    release.open();
  });

  it('interrupt aborts the run and takes back what was queued: nothing starts by itself (C11)', async () => {
    const called = gate();
    const chat = scripted_chat(async (call) => {
      called.open();
      await new Promise((_resolve, reject) =>
        call.options.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
      return `re: ${last_user(call)}`;
    });
    const { host, work_dir } = await host_with(chat);
    await writeFile(join(work_dir, 'shot.png'), Buffer.from(TINY_PNG_BASE64, 'base64'));
    const { session_id } = await host.create();
    await host.prompt(session_id, 'long task');
    await host.follow_up(session_id, 'then this');
    await host.steer(session_id, 'use tabs');
    const picture = { type: 'image' as const, media_type: 'image/png', data: TINY_PNG_BASE64 };
    await host.prompt(session_id, 'what is in it?', { images: [picture] });
    await host.prompt(session_id, 'and @shot.png', { attach_mentions: true });
    await called.promise;
    const taken = await host.interrupt(session_id);
    // the picture sent comes back with its text; the one @shot.png brought comes with the text
    expect(taken).toEqual({
      aborted: true,
      queued: ['use tabs', 'then this', 'what is in it?', 'and @shot.png'],
      queued_images: [[], [], [picture], []],
    });
    await host.idle(session_id);
    expect(chat.calls).toHaveLength(1);
    expect((await host.get(session_id)).queued).toBe(0);
  });

  it('aborts only its own session run', async () => {
    const chat = scripted_chat(async (call) => {
      if (last_user(call) === 'slow b') {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return 'b done';
      }
      return until_aborted(call.options.signal);
    });
    const { host } = await host_with(chat);
    const a = await host.create();
    const b = await host.create();
    const seen_a = collector();
    const seen_b = collector();
    await host.subscribe(a.session_id, seen_a.listener);
    await host.subscribe(b.session_id, seen_b.listener);
    const end_a = seen_a.next('turn.completed');
    const end_b = seen_b.next('turn.completed');
    await host.prompt(a.session_id, 'hang a');
    await host.prompt(b.session_id, 'slow b');
    expect(await host.abort(a.session_id)).toBe(true);
    expect((await end_a).payload).toMatchObject({ stop_reason: 'aborted' });
    expect((await end_b).payload).toMatchObject({ stop_reason: 'final', final: 'b done' });
    expect(await host.abort(a.session_id)).toBe(false);
  });

  it('records into the session file; load rebuilds history and the title', async () => {
    const chat = scripted_chat((call) => `noted: ${last_user(call)}`);
    const { host, agent } = await host_with(chat);
    const { session_id, path } = await host.create({ title: 'My  session' });
    await host.prompt(session_id, 'remember the word lich');
    await host.idle(session_id);
    await host.set_title(session_id, 'Renamed');
    await host.close(session_id);
    expect(path).not.toBeNull();
    const text = await readFile(path as string, 'utf8');
    expect(text).toContain('"type":"run_end"');
    expect(text).toContain('"type":"title","at":');
    expect(text).toContain('Renamed');

    const again = await make_host(chat, {});
    cleanup.push(() => again.temp.cleanup());
    const host2 = (await import('../src/host/session_host.js')).create_session_host({
      agent,
      on_warning: () => undefined,
    });
    const listed = await host2.list();
    expect(listed.map((info) => info.session_id)).toContain(session_id);
    expect(listed.find((info) => info.session_id === session_id)).toMatchObject({
      title: 'Renamed',
      live: false,
    });
    const info = await host2.load(session_id);
    expect(info).toMatchObject({ title: 'Renamed', live: true, busy: false });
    const history = await host2.history(session_id);
    expect(history.map((message) => message.content)).toEqual(
      expect.arrayContaining(['remember the word lich', 'noted: remember the word lich']),
    );
    await host2.prompt(session_id, 'what was the word?');
    await host2.idle(session_id);
    expect(chat.calls.at(-1)?.messages.map((m) => m.content)).toContain(
      'noted: remember the word lich',
    );
    await host2.delete(session_id);
    await expect(host2.get(session_id)).rejects.toMatchObject({ code: 'unknown_session' });
  });

  it('rejects unknown sessions and bad arguments with SessionHostError codes', async () => {
    const { host } = await host_with(scripted_chat(() => 'x'));
    const unknown = '20260101-000000-abcdef';
    for (const call of [
      () => host.get(unknown),
      () => host.history(unknown),
      () => host.prompt(unknown, 'hi'),
      () => host.subscribe(unknown, () => undefined),
      () => host.load('../etc/passwd'),
    ]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(SessionHostError.is_instance(error)).toBe(true);
      expect((error as SessionHostError).code).toBe('unknown_session');
    }
    const { session_id } = await host.create();
    await expect(host.prompt(session_id, '')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(host.set_model(session_id, 'nope/none')).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await host.shutdown();
    await expect(host.create()).rejects.toMatchObject({ code: 'shutting_down' });
  });

  it("/model with a bare name switches this session's provider to that model (C10)", async () => {
    const { host } = await host_with(
      scripted_chat(() => 'x'),
      {
        config: {
          providers: [
            { kind: 'openai_compat', model: 'fake-model', base_url: 'http://127.0.0.1:9/v1' },
          ],
        },
      },
    );
    const { session_id } = await host.create();
    const switched = await host.run_command(session_id, 'model', 'gpt-4.1');
    expect(switched).toMatchObject({ ok: true, output: 'Model: openai_compat/gpt-4.1' });
    const refused = await host.run_command(session_id, 'model', 'nope/none');
    expect(refused.ok).toBe(false);
  });

  it('lists and runs slash commands', async () => {
    const chat = scripted_chat((call) => `re: ${last_user(call)}`);
    const { host } = await host_with(chat);
    const { session_id } = await host.create();
    expect(host.commands().map((command) => command.name)).toEqual(
      expect.arrayContaining(['help', 'clear', 'compact', 'model', 'sessions']),
    );
    const help = await host.run_command(session_id, 'help');
    expect(help.ok).toBe(true);
    expect(help.output).toContain('/clear');
    await host.prompt(session_id, 'hello');
    await host.idle(session_id);
    expect((await host.history(session_id)).length).toBeGreaterThan(0);
    expect((await host.run_command(session_id, '/clear')).ok).toBe(true);
    expect(await host.history(session_id)).toEqual([]);
    const sessions = await host.run_command(session_id, 'sessions');
    expect(sessions.output).toContain(session_id);
    const unknown = await host.run_command(session_id, 'nope');
    expect(unknown).toMatchObject({ ok: false });
    expect(unknown.output).toContain('/help');
  });

  it('lists and runs the slash commands a plugin adds, beside the built-in ones', async () => {
    const chat = scripted_chat((call) => `re: ${last_user(call)}`);
    const { host, work_dir } = await host_with(chat, {
      config: { plugins: ['./deploy.mjs'] },
    });
    await writeFile(
      join(work_dir, 'deploy.mjs'),
      `export default {
        name: 'deploy',
        register(api) {
          api.register_command({
            name: 'deploy',
            description: 'Ship the work dir.',
            argument_hint: '<env>',
            run: (args, context) => 'to ' + args + ' from ' + context.work_dir + ' in ' + context.session_id,
          });
          api.register_command({
            name: 'broken',
            description: 'Fails.',
            run: () => { throw new Error('no luck'); },
          });
        },
      };\n`,
    );
    const { session_id } = await host.create();
    const listed = host.commands();
    expect(listed.map((command) => command.name)).toEqual([
      'help',
      'clear',
      'compact',
      'model',
      'sessions',
      'rewind',
      'skills',
      'deploy',
      'broken',
    ]);
    expect(listed.find((command) => command.name === 'deploy')).toEqual({
      name: 'deploy',
      description: 'Ship the work dir.',
      argument_hint: '<env>',
    });
    expect(await host.run_command(session_id, '/deploy', ' prod ')).toEqual({
      ok: true,
      output: `to prod from ${work_dir} in ${session_id}`,
    });
    expect((await host.run_command(session_id, 'help')).output).toContain('/deploy <env>');
    expect(await host.run_command(session_id, 'broken')).toEqual({
      ok: false,
      output: '/broken failed: no luck',
    });
  });

  it('refuses a plugin whose slash command takes a built-in name', async () => {
    const warnings: string[] = [];
    const chat = scripted_chat(() => 'never');
    const { host, work_dir, agent } = await host_with(chat, {
      config: { plugins: ['./clash.mjs'] },
      on_warning: (text: string) => warnings.push(text),
    });
    await writeFile(
      join(work_dir, 'clash.mjs'),
      `export default { name: 'clash', register(api) {
        api.register_command({ name: 'help', description: 'mine', run: () => 'mine' });
      } };\n`,
    );
    await expect(agent.prepare_plugins()).rejects.toThrow(
      "plugin 'clash': the slash command /help is already registered",
    );
    await host.create();
    expect(warnings.join('\n')).toMatch(/\/help is already registered/);
    expect(host.commands().filter((command) => command.name === 'help')).toHaveLength(1);
  });

  it('seeds runs with at most history_limit messages, and hands tools the session id', async () => {
    const chat = scripted_chat((call) =>
      last_user(call) === 'read' && call.messages.at(-1)?.role === 'user'
        ? to_chat_result({ tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] })
        : `re: ${last_user(call)}`,
    );
    const { host, agent } = await host_with(chat, { history_limit: 2 });
    const seen_context: unknown[] = [];
    agent.executor.add_hooks({
      before_tool_call: (_name, _args, context) => {
        seen_context.push(context.session_id);
      },
    });
    const { session_id } = await host.create();
    for (const text of ['one', 'two', 'three']) await host.prompt(session_id, text);
    await host.idle(session_id);
    const last = chat.calls.at(-1)?.messages.filter((message) => message.role !== 'system');
    expect(last?.map((message) => message.content)).toEqual(['two', 're: two', 'three']);
    await host.prompt(session_id, 'read');
    await host.idle(session_id);
    expect(seen_context).toEqual([session_id]);
  });

  it("ends a turn a spending limit stopped with the limit's words and scope (a gateway tells its owner)", async () => {
    const chat = scripted_chat(async () => 'never answered');
    const { host } = await host_with(chat, {
      config: {
        providers: [{ kind: 'anthropic', model: 'claude-x', max_tokens: 1000 }],
        prices: { 'anthropic/claude-x': { input: 1000, output: 1000 } },
        budget: { conversation_usd: 0.01 },
      },
    });
    const { session_id } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener);
    const done = seen.next('turn.completed');
    await host.prompt(session_id, 'hello', { budget_scopes: { conversation: 'test:a' } });
    const end = await done;
    expect(end.payload).toMatchObject({ stop_reason: 'budget', budget_scope: 'conversation' });
    expect((end.payload as { budget?: string }).budget).toContain('conversation budget of $0.01');
  });

  it('shuts down: aborts runs past the deadline and closes sessions', async () => {
    const chat = scripted_chat((call) => until_aborted(call.options.signal));
    const { host } = await host_with(chat);
    const { session_id } = await host.create();
    const seen = collector();
    await host.subscribe(session_id, seen.listener);
    const ended = seen.next('turn.completed');
    await host.prompt(session_id, 'never ends');
    await host.shutdown({ deadline_ms: 20 });
    expect((await ended).payload).toMatchObject({ stop_reason: 'aborted' });
    await host.shutdown();
  });
});

export type { SessionHost };
