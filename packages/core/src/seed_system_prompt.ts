import type { Message } from './types.js';

/**
 * Applies a system prompt to a history: prepends it, or replaces a leading system message whose
 * content differs. An absent or empty `system_prompt` leaves the messages as they are.
 *
 * Contract: never mutates `messages` or its messages; always returns a new array (a shallow copy
 * holding the same message objects, apart from the new system message). Never throws.
 */
export function seed_system_prompt(
  messages: readonly Message[],
  system_prompt: string | undefined,
): Message[] {
  const copy = [...messages];
  if (system_prompt === undefined || system_prompt === '') return copy;
  const first = copy[0];
  if (first?.role === 'system') {
    if (first.content !== system_prompt) copy[0] = { role: 'system', content: system_prompt };
    return copy;
  }
  copy.unshift({ role: 'system', content: system_prompt });
  return copy;
}
