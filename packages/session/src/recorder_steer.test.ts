import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentEmitter, type AgentEvent, type Message } from '@lich/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { list_sessions } from './list.js';
import { read_session, read_session_messages } from './reader.js';
import { attach_recorder } from './recorder.js';
import { SessionStore } from './store.js';

let dir: string;
let store: SessionStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lich-steer-'));
  store = new SessionStore({ session_dir: dir });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('steering, titles and permission decisions in a session file', () => {
  it('records a steered message in its place, so the history resumes as the loop had it', async () => {
    const handle = await store.create({ work_dir: dir, model: 'm', lich_version: '0.1.0' });
    const emitter = new AgentEmitter();
    const recorder = attach_recorder(emitter, handle);
    const ask: Message = { role: 'user', content: 'read a' };
    const call: Message = {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', name: 'read_file', arguments: '{}' }],
    };
    const result: Message = { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'A' };
    const steer: Message = { role: 'user', content: 'in French' };
    const answer: Message = { role: 'assistant', content: 'Un A.' };
    const events: AgentEvent[] = [
      { type: 'run_start', messages: [ask], max_turns: 4 },
      { type: 'llm_end', turn: 1, message: call, finish_reason: 'tool_calls', duration_ms: 1 },
      {
        type: 'tool_call_end',
        turn: 1,
        call: { id: 'c1', name: 'read_file', arguments: '{}' },
        result: { ok: true, output: 'A', duration_ms: 1 },
        message: result as never,
      },
      { type: 'steer', turn: 1, messages: [steer] },
      { type: 'llm_end', turn: 2, message: answer as never, finish_reason: 'stop', duration_ms: 1 },
      {
        type: 'run_end',
        stopped_reason: 'final',
        turns_used: 2,
        final: 'Un A.',
        messages: [ask, call, result, steer, answer],
      },
    ];
    for (const event of events) emitter.emit(event);
    await handle.append({ type: 'title', title: 'French letters' });
    await handle.append({
      type: 'permission',
      run: 1,
      tool: 'terminal',
      tool_call_id: 'c2',
      title: 'terminal: git push',
      decision: 'deny',
      source: 'no_approver',
    });
    await recorder.idle();
    await handle.close();
    const { records } = await read_session(handle.path);
    const steered = records.find(
      (record) => record.type === 'message' && record.source === 'steer',
    );
    expect(steered).toMatchObject({ index: 3, message: steer });
    expect(records.some((record) => record.type === 'message' && record.source === 'sync')).toBe(
      false,
    );
    expect(await read_session_messages(handle.path)).toEqual([ask, call, result, steer, answer]);
    const [summary] = await list_sessions(dir);
    expect(summary?.title).toBe('French letters');
    const reopened = await store.open(handle.id);
    expect(reopened.state.title).toBe('French letters');
    await reopened.close();
  });

  it('deletes a session file through the store', async () => {
    const handle = await store.create({ work_dir: dir, model: 'm', lich_version: '0.1.0' });
    await handle.close();
    expect((await store.list()).map((summary) => summary.id)).toEqual([handle.id]);
    expect(await store.delete(handle.id)).toBe(true);
    expect(await store.delete(handle.id)).toBe(false);
    expect(await store.list()).toEqual([]);
  });
});
