import { describe, expect, it, vi } from 'vitest';
import { FakeClient } from '../test/fake_client.js';
import { TuiController } from './controller.js';
import type { TuiState } from './state_types.js';
import { create_store } from './store.js';

async function started(open: Parameters<TuiController['start']>[0] = { kind: 'new' }) {
  const client = new FakeClient();
  const store = create_store({ frame_ms: 0 });
  const controller = new TuiController(client, store);
  await controller.start(open);
  return { client, store, controller };
}

function texts(state: TuiState): string[] {
  return state.blocks.map((block) =>
    block.kind === 'user' || block.kind === 'answer' || block.kind === 'notice'
      ? `${block.kind}:${block.text}`
      : block.kind === 'command'
        ? `command:${block.output}`
        : block.kind,
  );
}

const T = { turn_id: 'turn-1' };

describe('TuiController', () => {
  it('opens a new session and listens to it', async () => {
    const { client, store } = await started();
    expect(store.get_state().session?.session_id).toBe('session-1');
    expect(client.calls_of('subscribe')).toEqual([['session-1', {}]]);
  });

  it('continues the latest session with its history, or resumes the one named', async () => {
    const client = new FakeClient();
    await client.create();
    const second = await client.create();
    client.histories.set(second.session_id, [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: 'reply' },
    ]);
    const store = create_store({ frame_ms: 0 });
    await new TuiController(client, store).start({ kind: 'continue' });
    expect(store.get_state().session?.session_id).toBe('session-2');
    expect(texts(store.get_state())).toEqual(['user:earlier', 'answer:reply']);
    const other = create_store({ frame_ms: 0 });
    await new TuiController(client, other).start({ kind: 'resume', session_id: 'session-1' });
    expect(other.get_state().session?.session_id).toBe('session-1');
  });

  it('resumes by a unique part of an id, and says when none or several match', async () => {
    const client = new FakeClient();
    await client.create();
    await client.create();
    const store = create_store({ frame_ms: 0 });
    await new TuiController(client, store).start({ kind: 'resume', session_id: 'ion-2' });
    expect(store.get_state().session?.session_id).toBe('session-2');
    await expect(
      new TuiController(client, create_store()).start({ kind: 'resume', session_id: 'nope' }),
    ).rejects.toThrow(/no session 'nope'/);
    await expect(
      new TuiController(client, create_store()).start({ kind: 'resume', session_id: 'session' }),
    ).rejects.toThrow(/2 sessions match/);
  });

  it('creates sessions in the approval mode it was given, after /clear too', async () => {
    const client = new FakeClient();
    const controller = new TuiController(client, create_store({ frame_ms: 0 }), {
      approval_mode: 'yolo',
    });
    await controller.start({ kind: 'new' });
    await controller.submit('/clear');
    expect(client.calls_of('create')).toEqual([
      [{ approval_mode: 'yolo' }],
      [{ approval_mode: 'yolo' }],
    ]);
  });

  it('offers a picker of the sessions, and opens the one chosen or a new one', async () => {
    const client = new FakeClient();
    await client.create();
    await client.create();
    const store = create_store({ frame_ms: 0 });
    const controller = new TuiController(client, store);
    const started = controller.start({ kind: 'pick' });
    await vi.waitFor(() => expect(store.get_state().picker?.sessions).toHaveLength(2));
    controller.pick('session-1');
    await started;
    expect(store.get_state().picker).toBeNull();
    expect(store.get_state().session?.session_id).toBe('session-1');
    const fresh = new TuiController(client, create_store({ frame_ms: 0 }));
    const opening = fresh.start({ kind: 'pick' });
    await vi.waitFor(() => expect(fresh.store.get_state().picker).not.toBeNull());
    fresh.pick(null);
    await opening;
    expect(fresh.store.get_state().session?.session_id).toBe('session-3');
    const empty = new TuiController(new FakeClient(), create_store({ frame_ms: 0 }));
    await empty.start({ kind: 'pick' });
    expect(empty.store.get_state().session?.session_id).toBe('session-1');
  });

  it('sends a prompt when idle and a follow-up while a run is in flight', async () => {
    const { client, store, controller } = await started();
    client.on_prompt = (session_id, input, turn_id) =>
      client.emit(session_id, 'turn.started', { turn_id, input, kind: 'prompt' });
    await controller.submit('  first  ');
    expect(client.calls_of('prompt')).toEqual([
      ['session-1', 'first', { client_request_id: 'tui-1', attach_mentions: true }],
    ]);
    store.flush();
    expect(controller.busy()).toBe(true);
    await controller.submit('second');
    expect(client.calls_of('follow_up')).toEqual([['session-1', 'second']]);
    expect(store.get_state().queued.map((entry) => entry.text)).toEqual(['second']);
    await controller.submit('   ');
    expect(client.calls.filter((call) => call.method === 'prompt')).toHaveLength(1);
  });

  it('steers with the option and with /steer', async () => {
    const { client, store, controller } = await started();
    await controller.submit('go left', { steer: true });
    await controller.submit('/steer go right');
    expect(client.calls_of('steer')).toEqual([
      ['session-1', 'go left'],
      ['session-1', 'go right'],
    ]);
    expect(store.get_state().steering).toEqual(['go left', 'go right']);
    await controller.submit('/steer');
    expect(texts(store.get_state()).at(-1)).toMatch(/^notice:\/steer needs the text/);
  });

  it('runs host commands, refuses unknown ones without a model call, and handles local ones', async () => {
    const { client, store, controller } = await started();
    await controller.submit('/model gpt-x');
    expect(client.calls_of('run_command')).toEqual([['session-1', 'model', 'gpt-x']]);
    await controller.submit('/frobnicate');
    expect(texts(store.get_state()).slice(-2)).toEqual([
      'command:ran /model gpt-x',
      'notice:unknown command /frobnicate (/help lists them)',
    ]);
    expect(client.calls_of('prompt')).toEqual([]);
    await controller.submit('/help');
    const help = store.get_state().blocks.at(-1);
    expect(help?.kind === 'command' && help.output).toContain('/model');
    expect(help?.kind === 'command' && help.output).toContain('/clear');
  });

  it('/clear opens a new session and starts a new transcript', async () => {
    const { client, store, controller } = await started();
    client.emit('session-1', 'error', { message: 'before' });
    store.flush();
    await controller.submit('/clear');
    const state = store.get_state();
    expect(state.generation).toBe(1);
    expect(state.session?.session_id).toBe('session-2');
    expect(texts(state)).toEqual(['notice:new session session-2']);
    // the old session's events no longer reach the screen
    client.emit('session-1', 'error', { message: 'old' });
    store.flush();
    expect(texts(store.get_state())).toEqual(['notice:new session session-2']);
  });

  it('/quit and /exit end with 0', async () => {
    const { controller } = await started();
    await controller.submit('/quit');
    await expect(controller.exited).resolves.toBe(0);
    const other = await started();
    await other.controller.submit('/exit');
    await expect(other.controller.exited).resolves.toBe(0);
  });

  it('answers the oldest permission request', async () => {
    const { client, store, controller } = await started();
    for (const id of ['r1', 'r2']) {
      client.emit('session-1', 'permission.request', {
        ...T,
        request_id: id,
        tool_call_id: `c-${id}`,
        tool: 'terminal',
        args: {},
        title: 'terminal: ls',
        options: ['allow_once', 'reject_once'],
      });
    }
    store.flush();
    await controller.answer_permission('allow_once');
    expect(client.calls_of('respond_permission')).toEqual([['r1', 'allow_once']]);
    client.permission_known = false;
    await controller.answer_permission('reject_once');
    expect(texts(store.get_state()).at(-1)).toBe('notice:that request was already answered');
  });

  it('cycles the approval mode', async () => {
    const { client, controller } = await started();
    await controller.cycle_approval_mode();
    expect(client.calls_of('set_approval_mode')).toEqual([['session-1', 'auto_edit']]);
  });

  it('resubscribes after a gap and takes the replay of what it missed', async () => {
    const { client, store } = await started();
    client.emit('session-1', 'turn.started', { ...T, input: 'hi', kind: 'prompt' });
    client.drop_next = true;
    client.emit('session-1', 'message.delta', { ...T, text: 'lost ' });
    client.emit('session-1', 'message.delta', { ...T, text: 'found' });
    store.flush();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(client.calls_of('subscribe').at(-1)).toEqual([
      'session-1',
      { after_seq: 1, epoch: 'epoch-1' },
    ]);
    store.flush();
    expect(store.get_state().turn?.text).toBe('lost found');
    expect(store.get_state().needs_resync).toBe(false);
  });

  it('after a backend restart loads the session again and shows the last exchange from history', async () => {
    const { client, store } = await started();
    client.emit('session-1', 'turn.started', { ...T, input: 'hi', kind: 'prompt' });
    client.emit('session-1', 'message.delta', { ...T, text: 'par' });
    store.flush();
    client.restart();
    client.histories.set('session-1', [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'partial answer' },
    ]);
    client.report({ kind: 'lost', reason: 'exit 1' });
    client.report({ kind: 'up' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const state = store.get_state();
    expect(client.calls_of('load')).toEqual([['session-1']]);
    expect(client.calls_of('subscribe').at(-1)).toEqual([
      'session-1',
      { after_seq: 2, epoch: 'epoch-1' },
    ]);
    expect(texts(state)).toEqual([
      'user:hi',
      'notice:backend lost (exit 1); restarting it',
      'answer:par',
      'notice:reconnected: some events were lost; the last exchange is shown again from history',
      'user:hi',
      'answer:partial answer',
    ]);
    expect(state.epoch).toBe('epoch-2');
    client.emit('session-1', 'error', { message: 'after' });
    store.flush();
    expect(texts(store.get_state()).at(-1)).toBe('notice:after');
  });

  it('close stops listening and closes the client once', async () => {
    const { client, controller } = await started();
    await controller.close();
    await controller.close();
    expect(client.calls_of('close')).toHaveLength(1);
  });
});
