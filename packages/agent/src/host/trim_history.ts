import type { Message } from '@lich/core';

/**
 * The last `limit` messages of `history` (a leading system message kept and not counted), cut so
 * the kept part starts with a user message: never a tool result without its call, never an
 * assistant message first. `history` itself when it is within the limit. Pure; never throws.
 */
export function trim_history(history: readonly Message[], limit: number): readonly Message[] {
  const system = history[0]?.role === 'system' ? 1 : 0;
  if (!(limit >= 1) || history.length - system <= limit) return history;
  let from = history.length - Math.floor(limit);
  while (from < history.length && history[from]?.role !== 'user') from += 1;
  return [...history.slice(0, system), ...history.slice(from)];
}
