/**
 * A server's whole `tools/list`, page by page, each tool checked on its own. The SDK's own
 * `listTools` validates the list as one piece, so a single tool with a broken schema would cost
 * every tool of the server; this asks through the SDK with a loose result schema instead.
 */
import type { Client } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { type McpListedTool, parse_listed_tool } from './listed_tool.js';

/** Pages fetched at most; a server whose cursor never ends is cut off there. */
export const MAX_LIST_PAGES = 100;

const ListPageSchema = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

export interface ListAllToolsOptions {
  /** The server's name, for messages. */
  server: string;
  /** Time limit of each page. */
  timeout_ms: number;
  signal?: AbortSignal;
  /** Told about each skipped tool and a cut-off listing. */
  warn: (message: string) => void;
}

/**
 * Fetches every page of `tools/list` (following `nextCursor`; a repeated cursor ends the walk)
 * and keeps the tools that pass `parse_listed_tool`, the first of two with the same name.
 *
 * Contract: never throws. A server that does not declare the tools capability has no tools; a
 * failed request gives `ok: false` with the SDK's message.
 */
export async function list_all_tools(
  client: Client,
  options: ListAllToolsOptions,
): Promise<{ ok: true; tools: McpListedTool[] } | { ok: false; error: string }> {
  const { server, warn } = options;
  if (client.getServerCapabilities()?.tools === undefined) return { ok: true, tools: [] };
  const tools: McpListedTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    let result: z.output<typeof ListPageSchema>;
    try {
      result = await client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        ListPageSchema,
        { timeout: options.timeout_ms, signal: options.signal },
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false, error: `MCP server '${server}' failed to list its tools: ${reason}` };
    }
    for (const entry of result.tools) {
      const parsed = parse_listed_tool(entry, server);
      if (!parsed.ok) {
        warn(`MCP server '${server}': tool '${parsed.name}' skipped: ${parsed.error}`);
      } else if (seen.has(parsed.tool.name)) {
        warn(
          `MCP server '${server}': tool '${parsed.tool.name}' is listed twice; the first is kept`,
        );
      } else {
        seen.add(parsed.tool.name);
        tools.push(parsed.tool);
      }
    }
    if (result.nextCursor === undefined || result.nextCursor === cursor) return { ok: true, tools };
    cursor = result.nextCursor;
  }
  warn(`MCP server '${server}': more than ${MAX_LIST_PAGES} pages of tools; the rest is ignored`);
  return { ok: true, tools };
}
