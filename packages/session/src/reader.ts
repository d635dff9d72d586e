import { randomBytes } from 'node:crypto';
import { open, readFile, rename, truncate } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Message } from '@lich/core';
import { error_text, SessionError, system_code, throw_if_aborted } from './errors.js';
import { acquire_lock } from './lock.js';
import { type ParsedSession, parse_session } from './parse.js';
import type { SessionRecord } from './records.js';
import { conversation_of, state_of } from './state.js';

/** Something found wrong in a session file while reading it. */
export interface SessionProblem {
  /** `torn_tail`: the last line was cut off by a crash; `corrupt_line`: a bad line elsewhere. */
  kind: 'torn_tail' | 'corrupt_line';
  /** 1-based line number. */
  line: number;
  message: string;
  /** Where the bad bytes were moved, when the file was repaired. */
  moved_to?: string;
}

/** The records of a session file and what was wrong with it. */
export interface SessionContents {
  path: string;
  records: SessionRecord[];
  /** The 1-based line number of each record. */
  record_lines: number[];
  problems: SessionProblem[];
  /** Whether the file was changed (bad lines moved out, a torn tail cut). */
  repaired: boolean;
  /** The size of the file in bytes after reading (and repairing). */
  size: number;
}

/** Options of `read_session`. */
export interface ReadSessionOptions {
  /**
   * Move bad lines (and a torn tail) to `<file>.corrupt` and rewrite the file with the good
   * lines, atomically. Takes the session's write lock; refused while another process writes it.
   */
  repair?: boolean;
  signal?: AbortSignal;
}

async function read_bytes(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = system_code(error);
    if (code === 'ENOENT') {
      throw new SessionError('not_found', `no session file at ${path}`, { path, cause: error });
    }
    if (code === 'EISDIR') {
      throw new SessionError('not_jsonl', `${path} is a folder, not a session transcript`, {
        path,
        cause: error,
      });
    }
    throw new SessionError('not_found', `cannot read session ${path}: ${error_text(error)}`, {
      path,
      cause: error,
    });
  }
}

function corrupt_error(path: string, parsed: ParsedSession): SessionError {
  const first = parsed.bad[0];
  const count = parsed.bad.length;
  return new SessionError(
    'corrupt',
    `session ${path} line ${first?.line} is not a valid record (${first?.error})${count > 1 ? ` and ${count - 1} more bad lines` : ''}; read it with { repair: true } to move bad lines to ${path}.corrupt`,
    { path, line: first?.line },
  );
}

function problems_of(parsed: ParsedSession, moved_to?: string): SessionProblem[] {
  const problems: SessionProblem[] = parsed.bad.map((bad) => ({
    kind: 'corrupt_line' as const,
    line: bad.line,
    message: `line ${bad.line} is not a valid record (${bad.error})`,
    ...(moved_to === undefined ? {} : { moved_to }),
  }));
  if (parsed.torn !== undefined) {
    problems.push({
      kind: 'torn_tail',
      line: parsed.torn.line,
      message: `the last line (${parsed.torn.line}) is incomplete, cut off mid-write; it was dropped`,
      ...(moved_to === undefined ? {} : { moved_to }),
    });
  }
  return problems;
}

async function write_durably(path: string, data: Buffer | string, flags: string): Promise<void> {
  const handle = await open(path, flags, 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function sync_folder(path: string): Promise<void> {
  const handle = await open(dirname(path), 'r').catch(() => undefined);
  await handle?.sync().catch(() => undefined);
  await handle?.close();
}

/**
 * Fixes a parsed file in place; the caller holds the write lock. Bad lines and a torn tail are
 * appended to `<path>.corrupt` first, so nothing is lost; then either the good lines replace the
 * file through a temporary file and a rename (never a half-written file), or a torn tail is cut.
 */
async function repair_file(path: string, bytes: Buffer, parsed: ParsedSession): Promise<number> {
  const corrupt_path = `${path}.corrupt`;
  const moved = [...parsed.bad, ...(parsed.torn === undefined ? [] : [parsed.torn])];
  if (moved.length > 0) {
    const text = moved.map((bad) => `${bytes.toString('utf8', bad.start, bad.end)}\n`).join('');
    await write_durably(corrupt_path, text, 'a');
  }
  if (parsed.bad.length > 0) {
    const pieces: Buffer[] = [];
    let from = 0;
    for (const bad of parsed.bad) {
      pieces.push(bytes.subarray(from, bad.start));
      from = bad.end + 1;
    }
    pieces.push(bytes.subarray(from, parsed.valid_end));
    if (parsed.needs_newline) pieces.push(Buffer.from('\n'));
    const good = Buffer.concat(pieces);
    const temporary = join(
      dirname(path),
      `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`,
    );
    await write_durably(temporary, good, 'wx');
    await rename(temporary, path);
    await sync_folder(path);
    return good.length;
  }
  if (parsed.torn !== undefined) {
    await truncate(path, parsed.torn.start);
    return parsed.torn.start;
  }
  if (parsed.needs_newline) {
    await write_durably(path, '\n', 'a');
    return parsed.valid_end + 1;
  }
  return bytes.length;
}

/**
 * Reads and checks a session file; with `repair`, fixes it. Internal: the caller must hold the
 * write lock whenever `repair` or `fix_tail` may change the file.
 * `fix_tail` cuts a torn tail (to `.corrupt`) and ends the last record with a newline, so the
 * next append starts on its own line; bad lines elsewhere are refused unless `repair`.
 */
export async function load_session_file(
  path: string,
  options: { repair: boolean; fix_tail: boolean },
): Promise<SessionContents> {
  const bytes = await read_bytes(path);
  const parsed = parse_session(bytes, path);
  if (parsed.bad.length > 0 && !options.repair) throw corrupt_error(path, parsed);
  const needs_fix =
    parsed.bad.length > 0 || parsed.torn !== undefined || parsed.needs_newline === true;
  const change = needs_fix && (options.repair || options.fix_tail);
  const size = change ? await repair_file(path, bytes, parsed) : bytes.length;
  return {
    path,
    records: parsed.records,
    record_lines: parsed.record_lines,
    problems: problems_of(parsed, change ? `${path}.corrupt` : undefined),
    repaired: change,
    size,
  };
}

/**
 * Reads the records of one session file.
 *
 * Contract: a torn last line (a crash mid-write) is dropped and reported in `problems`; a bad
 * line anywhere else rejects with a `SessionError` (`corrupt`) naming its line, unless `repair`
 * is set, in which case the bad lines move to `<path>.corrupt` and the file is rewritten
 * atomically with the good ones. Rejects with `not_found`, `not_jsonl` (nothing in the file is a
 * session record) or `newer_version` (a record of a newer format; the file is left untouched).
 * Without `repair` the file is never modified. Rejects with `aborted` when `signal` has fired
 * before the read.
 */
export async function read_session(
  path: string,
  options: ReadSessionOptions = {},
): Promise<SessionContents> {
  throw_if_aborted(options.signal, `reading session ${path}`);
  const contents = await load_session_file(path, { repair: false, fix_tail: false }).catch(
    (error: unknown) => {
      if (options.repair && SessionError.is_instance(error) && error.code === 'corrupt') {
        return undefined;
      }
      throw error;
    },
  );
  if (contents !== undefined && (contents.problems.length === 0 || !options.repair)) {
    return contents;
  }
  const lock = await acquire_lock(path).catch((error: unknown) => {
    if (SessionError.is_instance(error) && error.code === 'locked') {
      throw new SessionError('locked', `cannot repair while it is written: ${error.message}`, {
        path,
        cause: error,
      });
    }
    throw error;
  });
  try {
    return await load_session_file(path, { repair: true, fix_tail: true });
  } finally {
    await lock.release();
  }
}

/** Options of `read_session_messages`. */
export interface ReadMessagesOptions extends ReadSessionOptions {
  /** Hears each problem found (a torn tail). Default: a warning on stderr. */
  on_problem?: (problem: SessionProblem, path: string) => void;
}

/**
 * The conversation to continue a session from: its messages with compressions applied (the
 * replaced messages give way to the summary), and every tool call whose result was never
 * recorded answered with an error result, so the history can be sent to a model as it is.
 *
 * Contract: as `read_session`; problems go to `on_problem`, which must not throw.
 */
export async function read_session_messages(
  path: string,
  options: ReadMessagesOptions = {},
): Promise<Message[]> {
  const contents = await read_session(path, options);
  const report =
    options.on_problem ??
    ((problem: SessionProblem, file: string) => {
      console.warn(`lich: session ${file}: ${problem.message}`);
    });
  for (const problem of contents.problems) report(problem, path);
  return conversation_of(state_of(contents.records));
}
