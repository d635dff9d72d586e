import type { InboundMessage } from './inbound_message.js';

function strip<T>(value: T): T {
  if (typeof value === 'string') {
    return (value.includes('\u0000') ? value.replaceAll('\u0000', '') : value) as T;
  }
  if (Array.isArray(value)) return value.map(strip) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = strip(item);
    return out as T;
  }
  return value;
}

/**
 * The message with every U+0000 removed from its strings (text, sender name, attachment names).
 * Nobody means a NUL in a chat message, and one would take a different path in each store (the
 * JSONL store keeps it, PostgreSQL's `jsonb` refuses it): stripped at the door, every store
 * answers the same. Returns the message itself when it holds none.
 *
 * Contract: pure; never throws.
 */
export function without_nul(message: InboundMessage): InboundMessage {
  return JSON.stringify(message).includes('\\u0000') ? strip(message) : message;
}
