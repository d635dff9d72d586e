/**
 * `attach_mcp`: connects the catalog's servers and registers their tools in a `ToolRegistry`, kept
 * in step with each server's tool list for as long as the attachment lives.
 */
import type { ToolRegistrar } from '@lich/core';
import type { McpCatalog, McpServerConfig } from './catalog.js';
import { McpConnection } from './connection.js';
import type { McpListedTool } from './listed_tool.js';
import { create_mcp_tool } from './mcp_tool.js';
import { matches_any, prefix_could_be_enabled, tool_wanted } from './tool_filter.js';
import { raw_mcp_tool_name, safe_mcp_tool_name } from './tool_names.js';

export interface AttachMcpOptions {
  /**
   * The agent's tool allowlist (exact names, `*` matches any run). An empty list means no tools at
   * all: nothing connects. When given, only MCP tools whose registered name it matches are
   * registered, and a server none of whose tools it could match is not connected.
   */
  tools_enabled?: readonly string[];
  /** Aborts the connecting; servers started so far are stopped. */
  signal?: AbortSignal;
  /** Told about each server that failed, each skipped tool, each server that went down. */
  on_warning?: (message: string) => void;
  /** Where relative `cwd`s are resolved and stdio servers run by default (process.cwd()). */
  work_dir?: string;
  /** Bound of each call's output in characters (100 000 by default). */
  max_output_chars?: number;
}

/** A server that could not be attached. */
export interface McpAttachFailure {
  server: string;
  error: string;
}

/** What `attach_mcp` attached. */
export interface McpAttachment {
  /** Servers connected, in catalog order. */
  readonly connected: string[];
  /** Servers that failed to start or initialize, in catalog order. */
  readonly failed: McpAttachFailure[];
  /** Servers left out: disabled, or none of their tools enabled. */
  readonly skipped: string[];
  /** The registered tool names now (they follow each server's tools/list_changed). */
  readonly tools: string[];
  /** The live connections of the connected servers, by server name. */
  readonly connections: ReadonlyMap<string, McpConnection>;
  /** Unregisters every tool and stops every server. Idempotent; never throws. */
  close(): Promise<void>;
}

/**
 * Connects the enabled servers of `catalog` in parallel and registers each tool as
 * `mcp_<server>_<tool>` (made safe for every provider, see `safe_mcp_tool_name`).
 *
 * Contract:
 * - never throws: a server that fails to start or to initialize within its `timeout_ms` is
 *   reported in `failed` and through `on_warning`, and the others attach;
 * - `tools_enabled: []` connects nothing; a server with `enabled: false` is skipped;
 * - `tools_include` / `tools_exclude` pick among a server's tools; a tool with an invalid schema
 *   is skipped with a warning;
 * - registration happens after all servers answered, in catalog order, so who gets a contested
 *   name is the same on every run; a tool keeps its name for the attachment's lifetime;
 * - when `signal` aborts, the servers are stopped and reported as failed.
 */
export async function attach_mcp(
  catalog: Readonly<McpCatalog>,
  registry: ToolRegistrar,
  options: AttachMcpOptions = {},
): Promise<McpAttachment> {
  const { tools_enabled, signal } = options;
  const warn = (message: string) => {
    try {
      options.on_warning?.(message);
    } catch {
      // a throwing listener must not stop the attach
    }
  };
  const chosen: [string, McpServerConfig][] = [];
  const skipped: string[] = [];
  if (tools_enabled === undefined || tools_enabled.length > 0) {
    for (const [server, config] of Object.entries(catalog)) {
      const prefix = raw_mcp_tool_name(server, '');
      const wanted =
        config.enabled !== false &&
        (tools_enabled === undefined || prefix_could_be_enabled(prefix, tools_enabled));
      if (wanted) chosen.push([server, config]);
      else skipped.push(server);
    }
  } else {
    skipped.push(...Object.keys(catalog));
  }

  const registered = new Map<string, Map<string, string>>();
  const sync_tools = (connection: McpConnection, tools: readonly McpListedTool[]) => {
    const server = connection.name;
    const names = registered.get(server) ?? new Map<string, string>();
    registered.set(server, names);
    const wanted = tools.filter((tool) => tool_wanted(tool.name, connection.config));
    const keep = new Set(wanted.map((tool) => tool.name));
    for (const [original, name] of names) {
      if (keep.has(original)) continue;
      registry.unregister(name);
      names.delete(original);
    }
    for (const tool of wanted) {
      const existing = names.get(tool.name);
      // re-register so a changed description or schema reaches the model; the name stays
      if (existing !== undefined) registry.unregister(existing);
      const name =
        existing ?? safe_mcp_tool_name(server, tool.name, (candidate) => registry.has(candidate));
      if (tools_enabled !== undefined && !matches_any(name, tools_enabled)) {
        names.delete(tool.name);
        continue;
      }
      try {
        registry.register(create_mcp_tool(connection, tool, name, options));
        // a registry with an admission filter (the agent's tools_disabled) may keep it out
        if (registry.has(name)) names.set(tool.name, name);
        else names.delete(tool.name);
      } catch (error) {
        names.delete(tool.name);
        warn(
          `MCP tool '${tool.name}' of server '${server}' not registered: ${(error as Error).message}`,
        );
      }
    }
  };

  const live = new Map<string, McpConnection>();
  const connections = chosen.map(
    ([server, config]) =>
      new McpConnection(server, config, {
        ...(options.work_dir !== undefined ? { work_dir: options.work_dir } : {}),
        on_warning: warn,
        on_tools_changed: (tools) => {
          const connection = live.get(server);
          if (connection !== undefined) sync_tools(connection, tools);
        },
      }),
  );
  const results = await Promise.all(
    connections.map((connection) => connection.connect({ signal })),
  );

  const connected: string[] = [];
  const failed: McpAttachFailure[] = [];
  const stopping: Promise<void>[] = [];
  connections.forEach((connection, index) => {
    const result = results[index];
    if (result?.ok && !signal?.aborted) {
      live.set(connection.name, connection);
      connected.push(connection.name);
      sync_tools(connection, connection.tools);
      return;
    }
    const error = result?.ok === false ? result.error : `MCP server '${connection.name}': aborted`;
    failed.push({ server: connection.name, error });
    warn(`${error}\n(the run goes on without MCP server '${connection.name}')`);
    stopping.push(connection.close());
  });
  await Promise.all(stopping);

  let closed = false;
  return {
    connected,
    failed,
    skipped,
    get tools() {
      return [...registered.values()].flatMap((names) => [...names.values()]);
    },
    connections: live,
    async close() {
      if (closed) return;
      closed = true;
      for (const names of registered.values()) {
        for (const name of names.values()) registry.unregister(name);
        names.clear();
      }
      const all = [...live.values()];
      live.clear();
      await Promise.all(all.map((connection) => connection.close()));
    },
  };
}
