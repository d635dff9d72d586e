import type { ToolCall } from '@lich/core';

/** A tool call being put together from the pieces the server sent. */
export interface ToolCallSlot {
  id?: string;
  name?: string;
  arguments: string;
}

/**
 * Turns the slots of a finished turn into `ToolCall`s, in index order.
 *
 * Contract: returns `{ ok: false, error }` (never throws) when a call has no name, since such a
 * call can be neither run nor answered. A missing id gets a fresh one (some servers send none);
 * empty arguments become `{}`.
 */
export function collect_tool_calls(
  slots: readonly (ToolCallSlot | undefined)[],
): { ok: true; tool_calls: ToolCall[] } | { ok: false; error: string } {
  const tool_calls: ToolCall[] = [];
  for (const [index, slot] of slots.entries()) {
    if (slot === undefined) continue;
    const name = slot.name?.trim();
    if (!name) return { ok: false, error: `tool call ${index} has no function name` };
    tool_calls.push({
      id: slot.id || `call_${crypto.randomUUID()}`,
      name,
      arguments: slot.arguments.trim() || '{}',
    });
  }
  return { ok: true, tool_calls };
}

/** Tool call arguments as text: servers that send an object get it serialised. Never throws. */
export function arguments_text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}
