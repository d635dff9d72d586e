import {
  MCP_SERVER_NAME_PATTERN,
  type McpCatalog,
  type McpServerConfigInput,
  parse_mcp_catalog,
} from '@lich/mcp/catalog';
import type { McpServer } from './acp_sdk.js';

/** The MCP servers of a `session/new`, as Lich's catalog, and what could not be taken. */
export interface AcpMcpCatalog {
  catalog: McpCatalog;
  warnings: string[];
}

/** A server name as Lich's catalog accepts it (it becomes part of tool names). */
export function catalog_name(name: string, taken: ReadonlySet<string>): string {
  let base = name.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[^A-Za-z0-9]+/, '');
  if (base === '') base = 'server';
  base = base.slice(0, 60);
  let candidate = base;
  for (let index = 2; taken.has(candidate); index += 1) candidate = `${base}_${index}`;
  return candidate;
}

function pairs(list: readonly { name: string; value: string }[]): Record<string, string> {
  return Object.fromEntries(list.map((entry) => [entry.name, entry.value]));
}

/**
 * Lich's `mcp_servers` catalog for the `mcpServers` of `session/new` (or `load`/`resume`): stdio
 * servers with their command, args and env; `http` as Streamable HTTP and `sse` as the legacy
 * transport, with their headers. Names are made to fit Lich's pattern (`my server` →
 * `my_server`), so tools are named `mcp_<name>_<tool>`.
 *
 * Contract: never throws; a server Lich's catalog refuses (a URL that is not http(s)) is left out
 * with a warning.
 */
export function acp_mcp_catalog(servers: readonly McpServer[]): AcpMcpCatalog {
  const entries: Record<string, McpServerConfigInput> = {};
  const warnings: string[] = [];
  const taken = new Set<string>();
  for (const server of servers) {
    const name =
      MCP_SERVER_NAME_PATTERN.test(server.name) && !taken.has(server.name)
        ? server.name
        : catalog_name(server.name, taken);
    let entry: McpServerConfigInput;
    if ('type' in server && (server.type === 'http' || server.type === 'sse')) {
      entry = {
        url: server.url,
        transport: server.type === 'sse' ? 'sse' : 'streamable_http',
        ...(server.headers.length > 0 ? { headers: pairs(server.headers) } : {}),
      };
    } else {
      entry = {
        command: server.command,
        args: [...server.args],
        ...(server.env.length > 0 ? { env: pairs(server.env) } : {}),
      };
    }
    const checked = parse_mcp_catalog({ [name]: entry });
    if (!checked.ok) {
      warnings.push(`MCP server '${server.name}' left out: ${checked.error}`);
      continue;
    }
    entries[name] = entry;
    taken.add(name);
  }
  const parsed = parse_mcp_catalog(entries);
  return { catalog: parsed.ok ? parsed.catalog : {}, warnings };
}
