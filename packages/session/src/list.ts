import { type FileHandle, open } from 'node:fs/promises';
import type { Usage } from '@lich/core';
import { compare_text, content_text, empty_usage, one_line } from '@lich/core';
import { error_text, throw_if_aborted } from './errors.js';
import type { SessionRecord } from './records.js';
import { read_session_ids, session_file } from './session_files.js';
import { validate_record } from './validate_record.js';

/** One session as `list_sessions` describes it. */
export interface SessionSummary {
  id: string;
  path: string;
  /**
   * The last `title` record's title (when the listing read it), else the first user message; on
   * one line, clamped to `TITLE_LIMIT` characters; `''` if none.
   */
  title: string;
  /** When the session was created (ISO 8601). */
  created: string;
  /** When the session file was last written (ISO 8601). */
  updated: string;
  /** How many runs the session has had. */
  runs: number;
  /** The total usage of the session's model calls, as of its last finished run. */
  usage: Usage;
  /**
   * The session's cost in dollars as of its last finished run: null when unknown (a model with
   * no price, or a session recorded before prices were).
   */
  cost_usd: number | null;
  model: string;
  work_dir: string;
  /** The file's size in bytes. */
  size: number;
  /** The session whose `task` tool started this one (a subagent), from its `session_start`. */
  parent_session_id?: string;
  /** Set when the file could not be summarised: what is wrong with it. */
  problem?: string;
}

/** Options of `list_sessions`. */
export interface ListSessionsOptions {
  signal?: AbortSignal;
  /** How many files are read at once (default 16). */
  concurrency?: number;
}

/** How long a title may be, in characters. */
export const TITLE_LIMIT = 80;
/** How much of the start of each file a listing reads. */
export const HEAD_BYTES = 16 * 1024;
/** How much of the end of each file a listing reads first; doubled while no `run_end` shows. */
export const TAIL_BYTES = 16 * 1024;
/** The most of the end of a file a listing reads looking for the last `run_end`. */
export const TAIL_LIMIT_BYTES = 1024 * 1024;

interface Window {
  records: SessionRecord[];
  newer: number | undefined;
}

/** The complete lines of `bytes[from, to)` that look like records of the wanted types. */
function records_in(bytes: Buffer, whole_start: boolean, wanted: (line: string) => boolean) {
  const window: Window = { records: [], newer: undefined };
  let start = whole_start ? 0 : bytes.indexOf(0x0a) + 1;
  if (!whole_start && start === 0) return window;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline === -1) break; // an unterminated line: torn, or cut by the window
    const text = bytes.toString('utf8', start, newline);
    start = newline + 1;
    if (!wanted(text)) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    const check = validate_record(value);
    if (check.ok) window.records.push(check.record);
    else if (check.newer_version !== undefined) window.newer ??= check.newer_version;
  }
  return window;
}

async function read_range(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await file.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buffer.subarray(0, done);
}

/** Run records, told by their first bytes: the writer puts `v` and `type` first. */
const RUN_RECORD = /^\{"v":\d+,"type":"(?:run_start|run_end|title)"/;
const ENDS = (line: string) => RUN_RECORD.test(line);

async function summarise(id: string, path: string): Promise<SessionSummary> {
  const summary: SessionSummary = {
    id,
    path,
    title: '',
    created: '',
    updated: '',
    runs: 0,
    usage: empty_usage(),
    cost_usd: null,
    model: '',
    work_dir: '',
    size: 0,
  };
  let file: FileHandle | undefined;
  try {
    file = await open(path, 'r');
    const info = await file.stat();
    summary.size = info.size;
    summary.updated = info.mtime.toISOString();
    const head_bytes = await read_range(file, 0, Math.min(info.size, HEAD_BYTES));
    const head = records_in(head_bytes, true, () => true);
    if (head.newer !== undefined) {
      summary.problem = `written by a newer Lich (session format v${head.newer})`;
      return summary;
    }
    const start = head.records.find((record) => record.type === 'session_start');
    if (start === undefined) {
      summary.problem = 'not a Lich session transcript (no session_start record at its start)';
      summary.created = summary.updated;
      return summary;
    }
    summary.created = start.created;
    if (start.parent_session_id !== undefined) summary.parent_session_id = start.parent_session_id;
    summary.model = start.model;
    summary.work_dir = start.work_dir;
    const first_input = head.records.find((record) => record.type === 'run_start' && record.input);
    const first_user = head.records.find(
      (record) => record.type === 'message' && record.message.role === 'user',
    );
    const title =
      first_input?.type === 'run_start'
        ? first_input.input
        : first_user?.type === 'message'
          ? content_text(first_user.message.content)
          : '';
    summary.title = one_line(title, TITLE_LIMIT);
    let tail = head;
    for (let length = TAIL_BYTES; ; length *= 2) {
      const whole = length >= info.size;
      if (info.size > HEAD_BYTES) {
        const from = whole ? 0 : info.size - length;
        tail = records_in(await read_range(file, from, info.size - from), whole, ENDS);
      }
      const last_end = tail.records.findLast((record) => record.type === 'run_end');
      for (const record of [...head.records, ...tail.records]) {
        if ('run' in record && record.run !== undefined)
          summary.runs = Math.max(summary.runs, record.run);
      }
      const titled = [...head.records, ...tail.records].findLast(
        (record) => record.type === 'title',
      );
      if (titled?.type === 'title') summary.title = one_line(titled.title, TITLE_LIMIT);
      if (last_end?.type === 'run_end') {
        summary.usage = last_end.usage_total;
        summary.cost_usd = last_end.cost_total_usd ?? null;
        break;
      }
      if (whole || info.size <= HEAD_BYTES || length >= TAIL_LIMIT_BYTES) {
        // no run_end near the end: the last one in the head is the best known total
        const head_end = head.records.findLast((record) => record.type === 'run_end');
        if (head_end?.type === 'run_end') {
          summary.usage = head_end.usage_total;
          summary.cost_usd = head_end.cost_total_usd ?? null;
        }
        break;
      }
    }
    return summary;
  } catch (error) {
    summary.problem = `cannot read it: ${error_text(error)}`;
    return summary;
  } finally {
    await file?.close().catch(() => undefined);
  }
}

/**
 * Describes every session in `session_dir`, most recently updated first.
 *
 * Contract: reads only the first `HEAD_BYTES` of each file (for `session_start` and the title)
 * and its last `TAIL_BYTES` (for the last `run_end`, which holds the cumulative run count and
 * usage), reading further back only while no `run_end` shows, up to `TAIL_LIMIT_BYTES`; so its
 * cost grows with the number of sessions, not their size. A file that cannot be summarised is
 * listed with `problem` set rather than failing the listing. A missing folder lists nothing.
 * Rejects with a `SessionError` when `session_dir` cannot be read, or `aborted`.
 */
export async function list_sessions(
  session_dir: string,
  options: ListSessionsOptions = {},
): Promise<SessionSummary[]> {
  throw_if_aborted(options.signal, 'listing sessions');
  const ids = await read_session_ids(session_dir);
  const summaries: SessionSummary[] = new Array(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      throw_if_aborted(options.signal, 'listing sessions');
      const position = next++;
      const id = ids[position] as string;
      summaries[position] = await summarise(id, session_file(session_dir, id));
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? 16, ids.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return summaries.sort((a, b) => compare_text(b.updated, a.updated) || compare_text(b.id, a.id));
}
