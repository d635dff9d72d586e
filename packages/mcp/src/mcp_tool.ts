/**
 * One MCP tool as a Lich `Tool`: the server validates the arguments, the model is shown the
 * server's own input schema, and a call goes through the server's connection.
 */
import type { Tool } from '@lich/core';
import { z } from 'zod';
import type { McpConnection } from './connection.js';
import type { McpListedTool } from './listed_tool.js';

/** Arguments of an MCP tool: any JSON object; the server checks it against its schema. */
export const McpArgumentsSchema = z.record(z.string(), z.unknown());

/** Extra time the executor allows past the MCP timeout, so the MCP timeout (and its message) fires first. */
const EXECUTOR_GRACE_MS = 1_000;

/**
 * Builds the `Tool` for `listed` of `connection`, registered as `name`.
 *
 * Contract: `execute` never throws; it honours `context.signal` (the server is sent a
 * cancellation) and the server's `timeout_ms`.
 */
export function create_mcp_tool(
  connection: McpConnection,
  listed: McpListedTool,
  name: string,
  options: { max_output_chars?: number } = {},
): Tool<Record<string, unknown>> {
  const timeout_ms = connection.timeout_ms;
  return {
    name,
    description: listed.description,
    parameters: McpArgumentsSchema,
    json_schema: listed.input_schema,
    timeout_ms: timeout_ms + EXECUTOR_GRACE_MS,
    execute: (args, context) =>
      connection.call_tool(listed.name, args, {
        signal: context.signal,
        timeout_ms,
        ...(options.max_output_chars !== undefined
          ? { max_output_chars: options.max_output_chars }
          : {}),
      }),
  };
}
