/**
 * Checks what a ChatFn resolved with before the loop keeps it, so one odd result cannot leave a
 * history that the next model call rejects.
 */
import type { AssistantMessage, ChatResult, ToolCall } from './types.js';
import { safe_stringify } from './util.js';

/**
 * Checks a ChatFn's result. Throws a clear `Error` when it holds no message; repairs a message a
 * next model call would reject (content not a string, an empty `tool_calls`, a call without an
 * id or with non-string arguments). Returns the result itself when it is already valid.
 */
export function checked_result(value: unknown, turn: number): ChatResult {
  const result = value as ChatResult | null | undefined;
  const message: unknown = result?.message;
  if (typeof message !== 'object' || message === null) {
    throw new Error(
      `run_conversation: the ChatFn resolved without a message on turn ${turn} (got ${safe_stringify(value).slice(0, 200)}); ` +
        "it must resolve with { message: { role: 'assistant', content, tool_calls? }, finish_reason }",
    );
  }
  const checked = as_valid_assistant(message as AssistantMessage, turn);
  return checked === message
    ? (result as ChatResult)
    : { ...(result as ChatResult), message: checked };
}

function as_valid_assistant(message: AssistantMessage, turn: number): AssistantMessage {
  const calls: unknown = message.tool_calls;
  const calls_valid =
    calls === undefined ||
    (Array.isArray(calls) &&
      calls.length > 0 &&
      calls.every(
        (call: Partial<ToolCall>) =>
          typeof call?.id === 'string' &&
          call.id !== '' &&
          typeof call.name === 'string' &&
          typeof call.arguments === 'string',
      ));
  if (message.role === 'assistant' && typeof message.content === 'string' && calls_valid) {
    return message;
  }
  const tool_calls = (Array.isArray(calls) ? (calls as Partial<ToolCall>[]) : []).map(
    (call, index): ToolCall => ({
      id: typeof call?.id === 'string' && call.id !== '' ? call.id : `call_${turn}_${index}`,
      name: typeof call?.name === 'string' ? call.name : String(call?.name),
      arguments:
        typeof call?.arguments === 'string'
          ? call.arguments
          : safe_stringify(call?.arguments ?? {}),
    }),
  );
  const { tool_calls: _dropped, ...rest } = message;
  const content = typeof message.content === 'string' ? message.content : '';
  const repaired: AssistantMessage = { ...rest, role: 'assistant', content };
  return tool_calls.length > 0 ? { ...repaired, tool_calls } : repaired;
}

/** The message without its tool calls (the same object when it has none). Never throws. */
export function without_tool_calls(message: AssistantMessage): AssistantMessage {
  if (message.tool_calls === undefined) return message;
  const { tool_calls: _dropped, ...rest } = message;
  return rest;
}
