import type { ToolDefinition } from '@lich/core';

/** A tool in the `{ type: 'function', function }` shape that OpenAI, Ollama and others share. */
export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The mapping of each definitions array already seen: a run offers the same one every turn. */
const MAPPED = new WeakMap<readonly ToolDefinition[], FunctionTool[]>();

/**
 * Maps Lich tool definitions to the function-tool shape. Never throws. The same array (by
 * identity) gives the same result, which must not be changed; an array changed in place after a
 * call is not mapped again.
 */
export function to_function_tools(tools: readonly ToolDefinition[]): FunctionTool[] {
  let mapped = MAPPED.get(tools);
  if (mapped === undefined) {
    mapped = tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    MAPPED.set(tools, mapped);
  }
  return mapped;
}
