import { randomBytes } from 'node:crypto';
import { SessionError } from './errors.js';

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function two(value: number): string {
  return String(value).padStart(2, '0');
}

/**
 * A new session id: the UTC time to the millisecond, then 8 random hex digits, e.g.
 * `20250301-142501-123-9f2c01ab`. Ids sort by creation time as plain strings.
 */
export function new_session_id(now: Date = new Date()): string {
  const date = `${now.getUTCFullYear()}${two(now.getUTCMonth() + 1)}${two(now.getUTCDate())}`;
  const time = `${two(now.getUTCHours())}${two(now.getUTCMinutes())}${two(now.getUTCSeconds())}`;
  const millis = String(now.getUTCMilliseconds()).padStart(3, '0');
  return `${date}-${time}-${millis}-${randomBytes(4).toString('hex')}`;
}

/**
 * Whether `id` is safe as a file name: 1 to 128 of `A-Z a-z 0-9 . _ -`, starting with a letter or
 * digit, and no `..`. Never throws.
 */
export function is_valid_session_id(id: unknown): id is string {
  return typeof id === 'string' && SAFE_ID.test(id) && !id.includes('..');
}

/** Throws a `SessionError` (`invalid_id`) naming the problem when `id` is not a valid id. */
export function assert_session_id(id: unknown): asserts id is string {
  if (is_valid_session_id(id)) return;
  const shown = typeof id === 'string' ? JSON.stringify(id) : String(id);
  const why =
    typeof id !== 'string'
      ? 'it is not a string'
      : id.includes('/') || id.includes('\\')
        ? 'it contains a path separator'
        : id.includes('..')
          ? "it contains '..'"
          : id.length === 0
            ? 'it is empty'
            : id.length > 128
              ? 'it is longer than 128 characters'
              : 'only letters, digits, ".", "_" and "-" are allowed, starting with a letter or digit';
  throw new SessionError('invalid_id', `invalid session id ${shown}: ${why}`);
}
