import type { ToolDefinition } from '@lich/core';

/** A tool in the `{ type: 'function', function }` shape that OpenAI, Ollama and others share. */
export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Maps Lich tool definitions to the function-tool shape, in order. Never throws. */
export function to_function_tools(tools: readonly ToolDefinition[]): FunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}
