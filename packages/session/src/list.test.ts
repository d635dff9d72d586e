import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent, Message } from '@lich/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HEAD_BYTES, list_sessions, TAIL_LIMIT_BYTES } from './list.js';
import { SessionRecorder } from './recorder.js';
import { SessionStore } from './store.js';

let dir: string;
let store: SessionStore;
let clock: number;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lich-list-'));
  clock = Date.parse('2025-03-01T10:00:00.000Z');
  store = new SessionStore({
    session_dir: dir,
    now: () => {
      clock += 1000;
      return new Date(clock);
    },
  });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function session(prompts: string[], options: { pad?: number; model?: string } = {}) {
  const handle = await store.create({
    work_dir: '/w',
    model: options.model ?? 'm',
    lich_version: '1',
  });
  const recorder = new SessionRecorder(handle);
  let history: Message[] = [{ role: 'system', content: 'sys' }];
  for (const prompt of prompts) {
    const seed: Message[] = [...history, { role: 'user', content: prompt }];
    const answer: Message = {
      role: 'assistant',
      content: `answer ${'z'.repeat(options.pad ?? 0)}`,
    };
    const events: AgentEvent[] = [
      { type: 'run_start', messages: seed, max_turns: 5 },
      {
        type: 'llm_end',
        turn: 1,
        message: answer,
        finish_reason: 'stop',
        usage: { input_tokens: 10, output_tokens: 2, cache_read_tokens: 1 },
        duration_ms: 1,
      },
      {
        type: 'run_end',
        stopped_reason: 'final',
        turns_used: 1,
        final: 'a',
        messages: [...seed, answer],
      },
    ];
    for (const event of events) recorder.record(event);
    history = [...seed, answer];
  }
  await recorder.idle();
  await handle.close();
  return handle;
}

describe('list_sessions', () => {
  it('describes each session, most recently updated first', async () => {
    const first = await session(['First question\nwith two lines', 'follow-up'], {
      model: 'gpt-a',
    });
    const second = await session(['x'.repeat(300)]);
    await utimes(first.path, new Date('2025-01-01'), new Date('2025-01-01'));
    const listed = await list_sessions(dir);
    expect(listed.map((summary) => summary.id)).toEqual([second.id, first.id]);
    expect(listed[1]).toMatchObject({
      id: first.id,
      path: first.path,
      title: 'First question with two lines',
      created: '2025-03-01T10:00:01.000Z',
      updated: '2025-01-01T00:00:00.000Z',
      runs: 2,
      usage: { input_tokens: 20, output_tokens: 4, cache_read_tokens: 2 },
      model: 'gpt-a',
      work_dir: '/w',
    });
    expect(listed[0]?.title).toHaveLength(80);
    expect(listed[0]?.title.endsWith('…')).toBe(true);
    expect(listed[0]?.problem).toBeUndefined();
  });

  it('finds the totals at the end of a large session without reading its middle', async () => {
    const big = await session(['big one', 'second', 'third'], { pad: 3 * HEAD_BYTES });
    const [summary] = await list_sessions(dir);
    expect(summary).toMatchObject({ id: big.id, title: 'big one', runs: 3 });
    expect(summary?.usage.input_tokens).toBe(30);
    expect(summary?.size).toBeGreaterThan(9 * HEAD_BYTES);
  });

  it('reads further back while a run is unfinished, up to its limit', async () => {
    const handle = await session(['done'], { pad: 2 * HEAD_BYTES });
    const reopened = await store.open(handle.id);
    await reopened.append({
      type: 'run_start',
      run: 2,
      max_turns: 5,
      seeded_count: 4,
      kept: 3,
      input: 'next',
    });
    const tool_output = (length: number, id: string) => ({
      type: 'message' as const,
      run: 2,
      index: 3,
      source: 'tool' as const,
      message: { role: 'tool' as const, tool_call_id: id, content: 'q'.repeat(length) },
    });
    await reopened.append(tool_output(200_000, 'c'));
    const [summary] = await list_sessions(dir);
    expect(summary).toMatchObject({ runs: 2, usage: { input_tokens: 10 } });
    // past the limit the listing stops reading: what the head and the tail show is all it knows
    await reopened.append(tool_output(TAIL_LIMIT_BYTES, 'd'));
    await reopened.close();
    const [far] = await list_sessions(dir);
    expect(far).toMatchObject({ title: 'done', runs: 1, usage: { input_tokens: 0 } });
    expect(far?.problem).toBeUndefined();
  });

  it('lists a damaged or foreign file with a problem instead of failing', async () => {
    await session(['fine']);
    await writeFile(join(dir, 'notes.jsonl'), 'hello\n');
    await writeFile(
      join(dir, 'newer.jsonl'),
      `${JSON.stringify({ v: 3, type: 'session_start', at: 'x' })}\n`,
    );
    await writeFile(join(dir, 'ignored.txt'), 'not a session file name');
    await writeFile(join(dir, '..weird.jsonl'), '');
    const listed = await list_sessions(dir);
    expect(listed).toHaveLength(3);
    const problems = Object.fromEntries(listed.map((summary) => [summary.id, summary.problem]));
    expect(problems.notes).toContain('not a Lich session transcript');
    expect(problems.newer).toContain('newer Lich (session format v3)');
  });

  it('lists nothing for a missing folder and fails clearly for a file', async () => {
    expect(await list_sessions(join(dir, 'nowhere'))).toEqual([]);
    await writeFile(join(dir, 'file'), '');
    await expect(list_sessions(join(dir, 'file'))).rejects.toThrow(
      'cannot read the session folder',
    );
    await expect(list_sessions(dir, { signal: AbortSignal.abort() })).rejects.toThrow('aborted');
  });
});
