import type { Message } from '@lich/core';

function same_value(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => same_value(item, b[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  if (left.type === 'image' && right.type === 'image' && same_picture(left, right)) return true;
  const keys = Object.keys(left).filter((key) => left[key] !== undefined);
  const other = Object.keys(right).filter((key) => right[key] !== undefined);
  return keys.length === other.length && keys.every((key) => same_value(left[key], right[key]));
}

/**
 * A picture read back from a session file holds its blob's hash (and, once resolved, its bytes
 * again); the one in memory holds its bytes. Two parts with the same hash are the same picture.
 */
function same_picture(left: Record<string, unknown>, right: Record<string, unknown>): boolean {
  if (typeof left.blob !== 'string' || left.blob !== right.blob) return false;
  return left.media_type === right.media_type && left.name === right.name;
}

/**
 * Whether two messages are the same as JSON would write them: the same fields with the same
 * values, in any key order (a field set to `undefined` counts as absent). Never throws.
 */
export function same_message(a: Message | undefined, b: Message | undefined): boolean {
  return same_value(a, b);
}

/** How many leading messages `held` and `seed` have in common. */
export function common_prefix(
  held: readonly (Message | undefined)[],
  seed: readonly Message[],
): number {
  const limit = Math.min(held.length, seed.length);
  let count = 0;
  while (count < limit && same_message(held[count], seed[count])) count += 1;
  return count;
}
