import { SESSION_FORMAT_VERSION, SESSION_RECORD_TYPES, type SessionRecord } from './records.js';

/** What checking one parsed line found. */
export type RecordCheck =
  | { ok: true; record: SessionRecord }
  | { ok: false; error: string; newer_version?: number };

type Fields = Record<string, unknown>;

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
// `budget` also ends the runs of files written before `max_turns` had its own word
const STOPPED = new Set(['final', 'max_turns', 'budget', 'aborted', 'refusal', 'error']);
const SOURCES = new Set(['seed', 'llm', 'tool', 'steer', 'sync']);
const DECISIONS = new Set(['allow', 'deny']);

function is_object(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function is_count(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** A user or tool message's content made of parts: text, and pictures held by data or blob. */
function check_parts(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'message content is neither text nor a list of parts';
  for (const part of value) {
    if (!is_object(part)) return 'a content part is not an object';
    if (part.type === 'text') {
      if (typeof part.text !== 'string') return 'a text part has no text';
    } else if (part.type === 'image') {
      if (typeof part.media_type !== 'string') return 'an image part has no media_type';
      if (typeof part.data !== 'string' && typeof part.blob !== 'string') {
        return 'an image part has neither data nor blob';
      }
    } else return `a content part has an unknown type (${String(part.type)})`;
  }
  return undefined;
}

function check_message(value: unknown): string | undefined {
  if (!is_object(value)) return 'message is not an object';
  if (typeof value.role !== 'string' || !ROLES.has(value.role)) return 'message has no valid role';
  if (typeof value.content !== 'string') {
    if (value.role !== 'user' && value.role !== 'tool') return 'message content is not a string';
    const problem = check_parts(value.content);
    if (problem !== undefined) return problem;
  }
  if (value.role === 'tool' && typeof value.tool_call_id !== 'string') {
    return 'tool message has no tool_call_id';
  }
  if (value.tool_calls !== undefined) {
    if (!Array.isArray(value.tool_calls)) return 'tool_calls is not an array';
    for (const call of value.tool_calls) {
      if (
        !is_object(call) ||
        typeof call.id !== 'string' ||
        typeof call.name !== 'string' ||
        typeof call.arguments !== 'string'
      ) {
        return 'a tool call lacks id, name or arguments';
      }
    }
  }
  return undefined;
}

function check_usage(value: unknown, name: string): string | undefined {
  if (!is_object(value) || typeof value.input_tokens !== 'number') {
    return `${name} is not a usage object`;
  }
  return typeof value.output_tokens === 'number' ? undefined : `${name} is not a usage object`;
}

function require_counts(fields: Fields, names: readonly string[]): string | undefined {
  for (const name of names) {
    if (!is_count(fields[name])) return `'${name}' is not a non-negative integer`;
  }
  return undefined;
}

function check_fields(fields: Fields): string | undefined {
  switch (fields.type) {
    case 'session_start':
      for (const name of ['id', 'created', 'work_dir', 'model', 'lich_version']) {
        if (typeof fields[name] !== 'string') return `'${name}' is not a string`;
      }
      return undefined;
    case 'run_start':
      if (typeof fields.input !== 'string') return "'input' is not a string";
      if (fields.request_id !== undefined && typeof fields.request_id !== 'string') {
        return "'request_id' is not a string";
      }
      return require_counts(fields, ['run', 'max_turns', 'seeded_count', 'kept']);
    case 'message':
      if (typeof fields.source !== 'string' || !SOURCES.has(fields.source)) {
        return "'source' is not seed, llm, tool, steer or sync";
      }
      if (fields.usage !== undefined) {
        const usage = check_usage(fields.usage, 'usage');
        if (usage !== undefined) return usage;
      }
      return require_counts(fields, ['run', 'index']) ?? check_message(fields.message);
    case 'budget_exhausted':
      return require_counts(fields, ['run', 'turns_used', 'max_turns']);
    case 'compress_end': {
      if (typeof fields.ok !== 'boolean') return "'ok' is not a boolean";
      const counts = require_counts(fields, ['run', 'before_count', 'after_count']);
      if (counts !== undefined || !fields.ok) return counts;
      const range = require_counts(fields, ['from', 'to']);
      if (range !== undefined) return range;
      if ((fields.from as number) > (fields.to as number)) return "'from' is after 'to'";
      return check_message(fields.summary_message);
    }
    case 'run_end':
      if (typeof fields.stopped_reason !== 'string' || !STOPPED.has(fields.stopped_reason)) {
        return "'stopped_reason' is not final, max_turns, budget, aborted, refusal or error";
      }
      return (
        require_counts(fields, ['run', 'turns_used', 'messages_count']) ??
        check_usage(fields.usage, 'usage') ??
        check_usage(fields.usage_total, 'usage_total')
      );
    case 'title':
      return typeof fields.title === 'string' ? undefined : "'title' is not a string";
    case 'permission':
      for (const name of ['tool', 'title', 'source']) {
        if (typeof fields[name] !== 'string') return `'${name}' is not a string`;
      }
      if (typeof fields.decision !== 'string' || !DECISIONS.has(fields.decision)) {
        return "'decision' is not allow or deny";
      }
      return fields.run === undefined ? undefined : require_counts(fields, ['run']);
    case 'hook':
      for (const name of ['event', 'command', 'decision']) {
        if (typeof fields[name] !== 'string') return `'${name}' is not a string`;
      }
      return undefined;
    case 'checkpoint':
      if (fields.kind !== 'before_prompt' && fields.kind !== 'after_prompt') {
        return "'kind' is not before_prompt or after_prompt";
      }
      if (typeof fields.checkpoint_id !== 'string') return "'checkpoint_id' is not a string";
      return require_counts(fields, ['run']);
    case 'rewind': {
      for (const name of ['restored', 'before', 'after']) {
        if (fields[name] !== undefined && typeof fields[name] !== 'string') {
          return `'${name}' is not a string`;
        }
      }
      if (fields.kept !== undefined) {
        const kept = require_counts(fields, ['kept']);
        if (kept !== undefined) return kept;
      }
      if (fields.messages !== undefined) {
        if (!Array.isArray(fields.messages)) return "'messages' is not an array";
        for (const message of fields.messages) {
          const problem = check_message(message);
          if (problem !== undefined) return problem;
        }
      }
      return require_counts(fields, ['run']);
    }
    default:
      return `unknown record type '${String(fields.type)}'`;
  }
}

/**
 * A record written before a field was renamed, with today's name: a `run_end` of Lich 0.1 has
 * `total_usage` where it now has `usage_total`. Other records come back as they are.
 */
function with_current_names(fields: Fields): Fields {
  if (fields.type !== 'run_end' || fields.usage_total !== undefined) return fields;
  if (fields.total_usage === undefined) return fields;
  const { total_usage, ...rest } = fields;
  return { ...rest, usage_total: total_usage };
}

/**
 * Checks that a parsed JSON value is a record this version can read.
 *
 * Contract: never throws. A record whose `v` is larger than `SESSION_FORMAT_VERSION` is reported
 * with `newer_version` set, so a caller can refuse the file instead of calling it corrupt.
 */
export function validate_record(value: unknown): RecordCheck {
  if (!is_object(value)) return { ok: false, error: 'the line is not a JSON object' };
  const version = value.v;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return { ok: false, error: "the record has no format version 'v'" };
  }
  if (version > SESSION_FORMAT_VERSION) {
    return {
      ok: false,
      error: `the record has format version ${version}`,
      newer_version: version,
    };
  }
  if (typeof value.type !== 'string' || !SESSION_RECORD_TYPES.includes(value.type as never)) {
    return { ok: false, error: `unknown record type '${String(value.type)}'` };
  }
  if (typeof value.at !== 'string') return { ok: false, error: "the record has no time 'at'" };
  const fields = with_current_names(value);
  const error = check_fields(fields);
  return error === undefined
    ? { ok: true, record: fields as unknown as SessionRecord }
    : { ok: false, error: `${fields.type} record: ${error}` };
}
