/**
 * Session persistence: appends per second through a `SessionHandle` (without and with a flush to
 * disk after every record) against plain positional writes of the same lines, and
 * `list_sessions` over 1,000 sessions of 10 kB against 1,000 sessions of 5 MB. The listing reads
 * only each file's head and tail, so the 5 MB listing should cost about what the 10 kB one does
 * (target: ratio < 2). The 5 MB files are real transcripts (a head, one large tool result, a
 * tail), written from shared buffers; the ~5 GB they take is deleted at the end.
 */
import { mkdir, mkdtemp, open as open_file, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent, Message } from '@lich/core';
import {
  list_sessions,
  new_session_id,
  SessionRecorder,
  type SessionRecordInput,
  SessionStore,
} from '@lich/session';
import { alternate } from './stats.js';
import type { BenchRow } from './types.js';

const SESSIONS = 1_000;
const SMALL_BYTES = 10_000;
const LARGE_BYTES = 5_000_000;
const APPENDS = 2_000;
const FSYNC_APPENDS = 200;
const ROUNDS = 5;
const LIST_ROUNDS = 7;
const TARGET_LIST_RATIO = 2;

const CONTENT = 'The quick brown fox reads a file and reports what it found. '.repeat(16);

function record(index: number): SessionRecordInput {
  return {
    type: 'message',
    run: 1,
    index,
    source: 'tool',
    message: { role: 'tool', tool_call_id: `call_${index}`, name: 'read_file', content: CONTENT },
  };
}

/** `count` appends through a fresh session handle, all queued at once as the recorder does. */
async function lich_appends(dir: string, count: number, fsync: 'record' | 'run_end') {
  const store = new SessionStore({ session_dir: dir, fsync });
  const handle = await store.create({ work_dir: dir, model: 'bench', lich_version: '0' });
  const pending: Promise<void>[] = [];
  for (let index = 0; index < count; index++) pending.push(handle.append(record(index)));
  await Promise.all(pending);
  await handle.close();
  await rm(handle.path);
}

/** The same lines written with plain positional writes on one file descriptor. */
async function raw_appends(dir: string, count: number, fsync: boolean) {
  const path = join(dir, `raw-${new_session_id()}.jsonl`);
  const file = await open_file(path, 'wx');
  let position = 0;
  for (let index = 0; index < count; index++) {
    const line = Buffer.from(
      `${JSON.stringify({ v: 1, at: new Date().toISOString(), ...record(index) })}\n`,
    );
    await file.write(line, 0, line.length, position);
    position += line.length;
    if (fsync) await file.sync();
  }
  await file.sync();
  await file.close();
  await rm(path);
}

/** A real session file written through the recorder: `middle` is the size of one tool result. */
async function template(dir: string, middle: number): Promise<{ id: string; bytes: Buffer }> {
  const store = new SessionStore({ session_dir: dir });
  const handle = await store.create({
    work_dir: '/work/project',
    model: 'gpt-bench',
    lich_version: '0.1.0',
  });
  const recorder = new SessionRecorder(handle);
  let history: Message[] = [{ role: 'system', content: `You are a coding agent. ${CONTENT}` }];
  for (let run = 1; run <= 2; run++) {
    const seed: Message[] = [
      ...history,
      { role: 'user', content: `Task ${run}: look at the logs` },
    ];
    const call: Message = {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: `c${run}`, name: 'read_file', arguments: '{"path":"app.log"}' }],
    };
    const size = run === 1 ? middle : 1_000;
    const result: Message = {
      role: 'tool',
      tool_call_id: `c${run}`,
      name: 'read_file',
      content: 'L'.repeat(size),
    };
    const answer: Message = { role: 'assistant', content: `Run ${run}: ${CONTENT}` };
    const usage = { input_tokens: 1_000, output_tokens: 100 };
    const events: AgentEvent[] = [
      { type: 'run_start', messages: seed, max_turns: 10 },
      {
        type: 'llm_end',
        turn: 1,
        message: call,
        finish_reason: 'tool_calls',
        usage,
        duration_ms: 1,
      },
      {
        type: 'tool_call_end',
        turn: 1,
        call: { id: `c${run}`, name: 'read_file', arguments: '{}' },
        result: { ok: true, output: '', duration_ms: 1 },
        message: result as Extract<Message, { role: 'tool' }>,
      },
      { type: 'llm_end', turn: 2, message: answer, finish_reason: 'stop', usage, duration_ms: 1 },
      {
        type: 'run_end',
        stopped_reason: 'final',
        turns_used: 2,
        final: '',
        messages: [...seed, call, result, answer],
      },
    ];
    for (const event of events) recorder.record(event);
    history = [...seed, call, result, answer];
  }
  await recorder.idle();
  await handle.close();
  const bytes = await readFile(handle.path);
  await rm(handle.path);
  return { id: handle.id, bytes };
}

/**
 * Writes `SESSIONS` copies of a template session of about `target` bytes into `dir`, each with
 * its own id. The large tool result is padded so the file reaches `target`; the bytes around it
 * are per file, the tool result is one shared buffer.
 */
async function populate(dir: string, target: number): Promise<number> {
  await mkdir(dir, { recursive: true });
  const probe = await template(join(dir, '..', 'probe'), 0);
  const { id, bytes } = await template(
    join(dir, '..', 'template'),
    Math.max(0, target - probe.bytes.length),
  );
  const marker = Buffer.from(`"content":"${'L'.repeat(64)}`);
  const big_start = bytes.indexOf(marker);
  const big_end = bytes.indexOf(0x0a, big_start);
  const head = bytes.subarray(0, big_start).toString('utf8');
  const middle = bytes.subarray(big_start, big_end);
  const tail = bytes.subarray(big_end);
  let total = 0;
  for (let index = 0; index < SESSIONS; index++) {
    const own = new_session_id(new Date(Date.UTC(2025, 0, 1, 0, 0, 0, index)));
    const file = await open_file(join(dir, `${own}.jsonl`), 'wx');
    const pieces = [Buffer.from(head.replaceAll(id, own)), middle, tail];
    await file.writev(pieces);
    await file.close();
    total += pieces.reduce((sum, piece) => sum + piece.length, 0);
  }
  return total / SESSIONS;
}

function per_second(count: number, ms: number): number {
  return count / (ms / 1000);
}

/** Measures and returns the benchmark's rows. */
export async function run(): Promise<BenchRow[]> {
  const root = await mkdtemp(join(tmpdir(), 'lich-bench-sessions-'));
  try {
    const appends_dir = join(root, 'appends');
    await mkdir(appends_dir);
    await lich_appends(appends_dir, 200, 'run_end');
    await raw_appends(appends_dir, 200, false);
    const plain = await alternate(
      ROUNDS,
      () => lich_appends(appends_dir, APPENDS, 'run_end'),
      () => raw_appends(appends_dir, APPENDS, false),
    );
    const flushed = await alternate(
      ROUNDS,
      () => lich_appends(appends_dir, FSYNC_APPENDS, 'record'),
      () => raw_appends(appends_dir, FSYNC_APPENDS, true),
    );

    const small_dir = join(root, 'small', 'sessions');
    const large_dir = join(root, 'large', 'sessions');
    const small_size = await populate(small_dir, SMALL_BYTES);
    const large_size = await populate(large_dir, LARGE_BYTES);
    const check_small = await list_sessions(small_dir);
    const check_large = await list_sessions(large_dir);
    for (const listed of [check_small, check_large]) {
      const wrong = listed.find((summary) => summary.runs !== 2 || summary.problem !== undefined);
      if (listed.length !== SESSIONS || wrong !== undefined) {
        throw new Error(
          `the listing is wrong: ${listed.length} sessions, ${JSON.stringify(wrong)}`,
        );
      }
    }
    const listing = await alternate(
      LIST_ROUNDS,
      async () => {
        await list_sessions(large_dir);
      },
      async () => {
        await list_sessions(small_dir);
      },
    );
    const kb = (bytes: number) => `${Math.round(bytes / 1000)} kB`;
    return [
      {
        bench: 'sessions',
        metric: `appends/s, flush at run_end (${APPENDS} x ~1 kB)`,
        lich: per_second(APPENDS, plain.lich_ms),
        baseline: per_second(APPENDS, plain.baseline_ms),
        baseline_name: 'raw pwrite',
        unit: 'appends/s',
        ratio: plain.baseline_ms / plain.lich_ms,
      },
      {
        bench: 'sessions',
        metric: `appends/s, fsync per record (${FSYNC_APPENDS} x ~1 kB)`,
        lich: per_second(FSYNC_APPENDS, flushed.lich_ms),
        baseline: per_second(FSYNC_APPENDS, flushed.baseline_ms),
        baseline_name: 'raw pwrite+fsync',
        unit: 'appends/s',
        ratio: flushed.baseline_ms / flushed.lich_ms,
      },
      {
        bench: 'sessions',
        metric: `list_sessions, ${SESSIONS} x ${kb(large_size)} vs ${SESSIONS} x ${kb(small_size)}`,
        lich: listing.lich_ms,
        baseline: listing.baseline_ms,
        baseline_name: `${SESSIONS} x ${kb(small_size)}`,
        unit: 'ms',
        ratio: listing.ratio,
        target: `ratio < ${TARGET_LIST_RATIO}`,
        pass: listing.ratio < TARGET_LIST_RATIO,
      },
      {
        bench: 'sessions',
        metric: `list_sessions per session, ${kb(large_size)} files`,
        lich: listing.lich_ms / SESSIONS,
        unit: 'ms',
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
