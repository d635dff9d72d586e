import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Message } from '@lich/core';
import { content_text, one_line } from '@lich/core';
import { error_text, SessionError, system_code, throw_if_aborted } from './errors.js';
import { read_session_ids, session_file } from './session_files.js';
import { validate_record } from './validate_record.js';

/** Options of `search_sessions`. */
export interface SearchSessionsOptions {
  /** Treat `query` as a regular expression (JavaScript syntax) instead of a plain substring. */
  regex?: boolean;
  /** Match case exactly (default: ignore case). */
  case_sensitive?: boolean;
  /** Stop after this many hits (default 100). */
  limit?: number;
  signal?: AbortSignal;
}

/** One message that matched a search. */
export interface SearchHit {
  session_id: string;
  path: string;
  /** The 1-based line of the record in the session file. */
  line: number;
  run: number;
  /** `message` for a message record, `compress_end` for a compression summary. */
  record_type: 'message' | 'compress_end';
  /** The matching message (for a compression, its summary message). */
  message: Message;
  /** The matched text with some context, on one line. */
  excerpt: string;
}

/** How many characters of context an excerpt shows on each side of the match. */
const EXCERPT_CONTEXT = 60;

/** Whether JSON writes `text` as it is: then it can be looked for in the raw line first. */
function written_as_is(text: string): boolean {
  return JSON.stringify(text) === `"${text}"`;
}

function texts_of(message: Message): string[] {
  const texts = [content_text(message.content)];
  if (message.role === 'assistant') {
    if (message.reasoning) texts.push(message.reasoning);
    for (const call of message.tool_calls ?? []) texts.push(`${call.name} ${call.arguments}`);
  }
  return texts;
}

function excerpt_of(text: string, at: number, length: number): string {
  const start = Math.max(0, at - EXCERPT_CONTEXT);
  const end = Math.min(text.length, at + length + EXCERPT_CONTEXT);
  const body = one_line(text.slice(start, end), EXCERPT_CONTEXT * 2 + length + 2);
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

interface Matcher {
  /** A cheap check on the raw line; false means the line cannot match. */
  maybe(line: string): boolean;
  /** The position and length of the first match in `text`, if any. */
  find(text: string): { at: number; length: number } | undefined;
}

function matcher_of(query: string, options: SearchSessionsOptions): Matcher {
  const fold = options.case_sensitive !== true;
  if (options.regex === true) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(query, fold ? 'i' : '');
    } catch (error) {
      throw new SessionError(
        'invalid_query',
        `invalid regular expression ${JSON.stringify(query)}: ${error_text(error)}`,
      );
    }
    return {
      maybe: () => true,
      find(text) {
        const match = pattern.exec(text);
        return match === null ? undefined : { at: match.index, length: match[0].length };
      },
    };
  }
  if (query === '') throw new SessionError('invalid_query', 'the search query is empty');
  const needle = fold ? query.toLowerCase() : query;
  const raw_check = written_as_is(query);
  return {
    maybe: (line) => !raw_check || (fold ? line.toLowerCase() : line).includes(needle),
    find(text) {
      const at = (fold ? text.toLowerCase() : text).indexOf(needle);
      return at === -1 ? undefined : { at, length: query.length };
    },
  };
}

async function search_file(
  id: string,
  path: string,
  matcher: Matcher,
  room: number,
  signal: AbortSignal | undefined,
): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let line_number = 0;
  try {
    for await (const line of lines) {
      line_number += 1;
      if (line_number % 1000 === 0) throw_if_aborted(signal, 'searching sessions');
      if (!line.startsWith('{"v":') || !matcher.maybe(line)) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue; // a torn or corrupt line: searching reads what it can
      }
      const check = validate_record(value);
      if (!check.ok) continue;
      const record = check.record;
      const message =
        record.type === 'message'
          ? record.message
          : record.type === 'compress_end' && record.ok
            ? record.summary_message
            : undefined;
      if (message === undefined || (record.type !== 'message' && record.type !== 'compress_end')) {
        continue;
      }
      for (const text of texts_of(message)) {
        const found = matcher.find(text);
        if (found === undefined) continue;
        hits.push({
          session_id: id,
          path,
          line: line_number,
          run: record.run,
          record_type: record.type,
          message,
          excerpt: excerpt_of(text, found.at, found.length),
        });
        break;
      }
      if (hits.length >= room) break;
    }
  } catch (error) {
    if (SessionError.is_instance(error)) throw error;
    if (system_code(error) !== 'ENOENT') throw error;
  } finally {
    lines.close();
    stream.destroy();
  }
  return hits;
}

/**
 * Searches the messages of every session in `session_dir` (their text, reasoning and tool calls,
 * and compression summaries), newest session first, streaming each file line by line.
 *
 * Contract: resolves with at most `limit` hits, in session order (newest first) and line order
 * within a session. Lines that do not parse are skipped (searching never fails on a damaged
 * file). Rejects with a `SessionError`: `invalid_query` for an empty query or a bad regular
 * expression, `not_found` when the folder cannot be read, `aborted` when `signal` fires. A
 * missing folder finds nothing.
 */
export async function search_sessions(
  session_dir: string,
  query: string,
  options: SearchSessionsOptions = {},
): Promise<SearchHit[]> {
  const matcher = matcher_of(query, options);
  const limit = options.limit ?? 100;
  throw_if_aborted(options.signal, 'searching sessions');
  const ids = (await read_session_ids(session_dir)).sort().reverse();
  const hits: SearchHit[] = [];
  for (const id of ids) {
    if (hits.length >= limit) break;
    throw_if_aborted(options.signal, 'searching sessions');
    const path = session_file(session_dir, id);
    hits.push(...(await search_file(id, path, matcher, limit - hits.length, options.signal)));
  }
  return hits;
}
