import type { SessionHost } from '@lich/agent';
import type { McpCatalog } from '@lich/mcp/catalog';
import type { Tool } from '@lich/tools';

/** What one SessionHost of `lich acp` is built for. */
export interface HostSetup {
  /** The session's `cwd`: the Agent's work dir. Absolute. */
  work_dir: string;
  /** The MCP servers the client passed, added to (and overriding) the project's own. */
  mcp_servers: McpCatalog;
  /** Tools that replace the builtins of the same name (the client's `fs/*`, `terminal/*`). */
  tools: readonly Tool<never>[];
}

/**
 * Builds a SessionHost over an Agent for `setup` (the CLI loads the config of `work_dir`). A
 * rejection fails the `session/new` that needed it, with its message.
 */
export type HostFactory = (setup: HostSetup) => Promise<SessionHost>;

function setup_key(work_dir: string, mcp_servers: McpCatalog): string {
  const servers = Object.keys(mcp_servers)
    .sort()
    .map((name) => [name, mcp_servers[name]]);
  return JSON.stringify([work_dir, servers]);
}

/**
 * The hosts of one ACP connection: one per (work dir, MCP server set), since each session's Agent
 * is built from its cwd's config and the MCP servers the client named for it.
 *
 * Contract: `host_for` builds each host once (concurrent callers share the build; a failed build
 * is retried by the next caller); `shutdown` shuts every host down and never rejects.
 */
export class HostPool {
  readonly #factory: HostFactory;
  readonly #tools: () => readonly Tool<never>[];
  readonly #hosts = new Map<string, Promise<SessionHost>>();

  constructor(factory: HostFactory, tools: () => readonly Tool<never>[]) {
    this.#factory = factory;
    this.#tools = tools;
  }

  host_for(work_dir: string, mcp_servers: McpCatalog = {}): Promise<SessionHost> {
    const key = setup_key(work_dir, mcp_servers);
    let host = this.#hosts.get(key);
    if (host === undefined) {
      host = this.#factory({ work_dir, mcp_servers, tools: this.#tools() });
      this.#hosts.set(key, host);
      host.catch(() => {
        if (this.#hosts.get(key) === host) this.#hosts.delete(key);
      });
    }
    return host;
  }

  /** The hosts built so far. */
  async hosts(): Promise<SessionHost[]> {
    const settled = await Promise.allSettled(this.#hosts.values());
    return settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  }

  async shutdown(deadline_ms = 5_000): Promise<void> {
    const hosts = await this.hosts();
    this.#hosts.clear();
    await Promise.allSettled(hosts.map((host) => host.shutdown({ deadline_ms })));
  }
}
