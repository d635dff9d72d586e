import { SessionError } from './errors.js';
import { SESSION_FORMAT_VERSION, type SessionRecord } from './records.js';
import { validate_record } from './validate_record.js';

/** One line that is not a valid record, with its place in the file. */
export interface BadLine {
  /** 1-based line number. */
  line: number;
  /** Byte offsets of the line in the file, newline excluded. */
  start: number;
  end: number;
  error: string;
}

/** A session file split into records and problems. */
export interface ParsedSession {
  records: SessionRecord[];
  /** The 1-based line number of each record. */
  record_lines: number[];
  /** Lines in the middle (or a terminated last line) that are not valid records. */
  bad: BadLine[];
  /** An unterminated last line that is not a valid record: what a crash mid-write leaves. */
  torn: BadLine | undefined;
  /** True when the last line is a complete record missing only its newline. */
  needs_newline: boolean;
  /** The byte offset just past the last complete line (or the valid unterminated record). */
  valid_end: number;
}

const RECORD_PREFIX = '{"v":';

function parse_line(text: string): ReturnType<typeof validate_record> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `not JSON (${error instanceof Error ? error.message : error})` };
  }
  return validate_record(value);
}

/**
 * Splits the bytes of a session file into records, bad lines and a torn tail.
 *
 * Contract: throws a `SessionError` with code `newer_version` (naming the line) when any line
 * was written by a newer format, and `not_jsonl` when no line at all is a valid record and the
 * content is not just a torn first record; otherwise never throws. Empty lines are skipped.
 */
export function parse_session(bytes: Buffer, path: string): ParsedSession {
  const parsed: ParsedSession = {
    records: [],
    record_lines: [],
    bad: [],
    torn: undefined,
    needs_newline: false,
    valid_end: 0,
  };
  let start = 0;
  let line = 0;
  while (start < bytes.length) {
    line += 1;
    const newline = bytes.indexOf(0x0a, start);
    const terminated = newline !== -1;
    const end = terminated ? newline : bytes.length;
    const text = bytes.toString('utf8', start, end);
    const next = terminated ? newline + 1 : bytes.length;
    if (text.trim() === '') {
      if (terminated) parsed.valid_end = next;
      start = next;
      continue;
    }
    const check = parse_line(text);
    if (check.ok) {
      parsed.records.push(check.record);
      parsed.record_lines.push(line);
      parsed.needs_newline = !terminated;
      parsed.valid_end = next;
    } else if (check.newer_version !== undefined) {
      throw new SessionError(
        'newer_version',
        `session ${path} line ${line} was written by a newer Lich (session format v${check.newer_version}; this version reads v${SESSION_FORMAT_VERSION}): upgrade Lich to read it; the file was left as it is`,
        { path, line },
      );
    } else if (terminated) {
      parsed.bad.push({ line, start, end, error: check.error });
      parsed.valid_end = next;
    } else {
      parsed.torn = { line, start, end, error: check.error };
    }
    start = next;
  }
  if (parsed.records.length === 0 && (parsed.bad.length > 0 || parsed.torn !== undefined)) {
    const first = parsed.bad[0] ?? parsed.torn;
    const torn_first_record =
      parsed.bad.length === 0 && bytes.toString('utf8', 0, RECORD_PREFIX.length) === RECORD_PREFIX;
    if (!torn_first_record) {
      throw new SessionError(
        'not_jsonl',
        `${path} is not a Lich session transcript: line ${first?.line ?? 1} is not a session record (${first?.error ?? 'unknown'}); the file was left as it is`,
        { path, line: first?.line ?? 1 },
      );
    }
  }
  return parsed;
}
