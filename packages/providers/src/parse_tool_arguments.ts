/**
 * A tool call's `arguments` (the JSON text the model wrote) as the object an API wants to be sent
 * back (Anthropic `input`, Ollama `function.arguments`). Text that is not a JSON object gives
 * `{}`: the model wrote bad JSON, and the tool already answered that call with an error.
 *
 * Contract: never throws; returns a new object each call.
 */
export function parse_tool_arguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // not JSON: fall through
  }
  return {};
}
