/**
 * `check_mcp_servers`: connects each enabled server of a work dir's config once, counts its tools
 * and stops it again: the health column of `lich mcp list`.
 */
import { readFile } from 'node:fs/promises';
import { parse_mcp_catalog } from './catalog.js';
import { work_dir_config_path } from './config_edit.js';
import { McpConnection } from './connection.js';

/** One server's health: connected with this many tools, or why not. */
export type McpHealth = { ok: true; tools: number } | { ok: false; error: string };

/**
 * Checks the enabled servers of `<work_dir>/.lich/config.json` in parallel, each within its own
 * `timeout_ms`. Disabled servers and entries that do not pass the schema are left out.
 *
 * Contract: never throws; every server started is stopped before it resolves; an abort of
 * `signal` reports the servers not yet answered as failed.
 */
export async function check_mcp_servers(
  work_dir: string,
  options: { signal?: AbortSignal } = {},
): Promise<Map<string, McpHealth>> {
  const health = new Map<string, McpHealth>();
  let servers: Record<string, unknown>;
  try {
    const document = JSON.parse(await readFile(work_dir_config_path(work_dir), 'utf8')) as {
      mcp_servers?: unknown;
    };
    servers = (document.mcp_servers ?? {}) as Record<string, unknown>;
  } catch {
    return health;
  }
  await Promise.all(
    Object.entries(servers).map(async ([name, entry]) => {
      const parsed = parse_mcp_catalog({ [name]: entry });
      const config = parsed.ok ? parsed.catalog[name] : undefined;
      if (config === undefined || config.enabled === false) return;
      const connection = new McpConnection(name, config, { work_dir, on_warning: () => {} });
      try {
        const result = await connection.connect(
          options.signal === undefined ? {} : { signal: options.signal },
        );
        health.set(
          name,
          result.ok ? { ok: true, tools: result.tools.length } : { ok: false, error: result.error },
        );
      } catch (error) {
        health.set(name, {
          ok: false,
          error: error instanceof Error ? error.message : String(error),
        });
      } finally {
        await connection.close().catch(() => {});
      }
    }),
  );
  return health;
}
