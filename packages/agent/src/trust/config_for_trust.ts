import type { AgentConfig, McpServersConfig } from '../config/config_schema.js';

/** The keys whose repository-set values wait for the folder's trust. */
export type HeldKey =
  | 'providers'
  | 'plugins'
  | 'permissions'
  | 'sandbox'
  | 'env_passthrough'
  | 'budget'
  | 'prices';

/**
 * What the repository's config file (`<work_dir>/.lich/config.json`, or `--config`) set that
 * would run code or widen what runs without asking, and the values an untrusted folder uses in
 * its place: the user's own (or the defaults), plus what the file set that only takes power away.
 */
export interface HeldUntilTrusted {
  /** What is held back, one item a line: `plugins ./evil.js (code run in-process)`. */
  readonly lines: readonly string[];
  /** The values of these keys in an untrusted folder. */
  readonly values: Readonly<Pick<AgentConfig, HeldKey>>;
  /** MCP servers by name: `null` drops the repository's, an entry gives back the user's own. */
  readonly mcp_servers: Readonly<Record<string, McpServersConfig[string] | null>>;
}

/** The config an Agent runs with, and what was held back from it. */
export interface ConfigForTrust {
  config: AgentConfig;
  /** Empty when trusted or when the repository's file sets nothing that waits for trust. */
  held: readonly string[];
}

/**
 * The config to run with in a folder that is (or is not) `trusted`: trusted, `config` itself;
 * untrusted, `config` with `held_until_trusted` applied (the repository's plugins, MCP servers
 * that start commands or send secrets, permission and sandbox widenings… taken out) and that field
 * removed, so applying it twice holds nothing more. MCP servers added after loading (an editor's,
 * through ACP) stay. Pure; never throws.
 */
export function config_for_trust(config: AgentConfig, trusted: boolean): ConfigForTrust {
  const held = config.held_until_trusted;
  if (trusted || held === undefined) return { config, held: [] };
  const mcp_servers: Record<string, McpServersConfig[string]> = { ...config.mcp_servers };
  for (const [name, entry] of Object.entries(held.mcp_servers)) {
    if (entry === null) delete mcp_servers[name];
    else mcp_servers[name] = entry;
  }
  const { held_until_trusted: _held, ...rest } = config;
  return {
    config: Object.freeze({ ...rest, ...held.values, mcp_servers: Object.freeze(mcp_servers) }),
    held: held.lines,
  };
}

/** The one warning an untrusted folder's held-back settings get, in the hook dispatcher's words. */
export function held_warning(held: readonly string[]): string {
  return `the repository's config sets what does not run: this folder is not trusted (lich trust, or --trust):\n${held.map((line) => `  ${line}`).join('\n')}`;
}
