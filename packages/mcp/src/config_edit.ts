/**
 * The edits behind `lich mcp list|add|enable|disable|remove`: the `mcp_servers` key of
 * `<work_dir>/.lich/config.json`, written atomically, every other key left as it was.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  MCP_SERVER_NAME_PATTERN,
  type McpServerConfigInput,
  McpServerConfigSchema,
} from './catalog.js';
import { redact_secrets } from './redact.js';

/** The work dir's config file, relative to the work dir. */
export const WORK_DIR_CONFIG_PATH = join('.lich', 'config.json');

/** Options of every config edit. */
export interface ConfigEditOptions {
  signal?: AbortSignal;
}

/** The outcome of an edit: where it was written, or why nothing was. */
export type ConfigEditResult = { ok: true; path: string } | { ok: false; error: string };

/** One line of `lich mcp list`. Secret values are never included: env and headers by name only. */
export interface McpServerSummary {
  name: string;
  kind: 'stdio' | 'http';
  enabled: boolean;
  /** The command line, or the url (credentials and token-like query values redacted). */
  target: string;
  env_names: string[];
  header_names: string[];
  timeout_ms?: number;
  tools_include?: string[];
  tools_exclude?: string[];
  /** Set when the entry does not pass the schema; it will not connect until fixed. */
  problem?: string;
}

/** The outcome of `list_mcp_servers`. */
export type McpServerListResult =
  | { ok: true; path: string; servers: McpServerSummary[] }
  | { ok: false; error: string };

type ConfigDocument = Record<string, unknown>;
type Loaded =
  | { ok: true; document: ConfigDocument; servers: Record<string, unknown> }
  | { ok: false; error: string };

/** `<work_dir>/.lich/config.json`. */
export function work_dir_config_path(work_dir: string): string {
  return join(work_dir, WORK_DIR_CONFIG_PATH);
}

/**
 * Lists the servers of the work dir's config (none when there is no config file).
 * Never throws: an unreadable or invalid file gives `ok: false`.
 */
export async function list_mcp_servers(
  work_dir: string,
  options: ConfigEditOptions = {},
): Promise<McpServerListResult> {
  const path = work_dir_config_path(work_dir);
  const loaded = await load(path, options.signal);
  if (!loaded.ok) return loaded;
  const servers = Object.entries(loaded.servers).map(([name, entry]) => summarize(name, entry));
  return { ok: true, path, servers };
}

/**
 * Adds a server. Fails (writing nothing) when the name is taken or invalid, or when `config`
 * does not pass `McpServerConfigSchema`. Creates `.lich/config.json` when missing. Never throws.
 */
export async function add_mcp_server(
  work_dir: string,
  name: string,
  config: McpServerConfigInput,
  options: ConfigEditOptions = {},
): Promise<ConfigEditResult> {
  if (!MCP_SERVER_NAME_PATTERN.test(name)) {
    return {
      ok: false,
      error: `invalid server name '${name}': use 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit`,
    };
  }
  const parsed = McpServerConfigSchema.safeParse(config);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((issue) => `${issue.path.map(String).join('.') || 'server'}: ${issue.message}`)
      .join('; ');
    return { ok: false, error: `invalid MCP server '${name}': ${detail}` };
  }
  return edit(work_dir, options, (servers, path) => {
    if (Object.hasOwn(servers, name)) {
      return `an MCP server named '${name}' already exists in ${path}; remove it first or pick another name`;
    }
    servers[name] = config;
    return undefined;
  });
}

/** Sets `enabled` of an existing server. Fails for an unknown name, listing the known ones. */
export function set_mcp_server_enabled(
  work_dir: string,
  name: string,
  enabled: boolean,
  options: ConfigEditOptions = {},
): Promise<ConfigEditResult> {
  return edit(work_dir, options, (servers, path) => {
    const entry = servers[name];
    if (!Object.hasOwn(servers, name)) return unknown_server(name, servers, path);
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      return `MCP server '${name}' in ${path} is not an object; fix it by hand`;
    }
    servers[name] = { ...entry, enabled };
    return undefined;
  });
}

/** Removes a server. Fails for an unknown name, listing the known ones. */
export function remove_mcp_server(
  work_dir: string,
  name: string,
  options: ConfigEditOptions = {},
): Promise<ConfigEditResult> {
  return edit(work_dir, options, (servers, path) => {
    if (!Object.hasOwn(servers, name)) return unknown_server(name, servers, path);
    delete servers[name];
    return undefined;
  });
}

function unknown_server(name: string, servers: Record<string, unknown>, path: string): string {
  const known = Object.keys(servers);
  const list = known.length === 0 ? 'there are none' : `known: ${known.join(', ')}`;
  return `no MCP server named '${name}' in ${path} (${list})`;
}

/** Loads, applies `change` (which returns an error or undefined), writes atomically. */
async function edit(
  work_dir: string,
  options: ConfigEditOptions,
  change: (servers: Record<string, unknown>, path: string) => string | undefined,
): Promise<ConfigEditResult> {
  const path = work_dir_config_path(work_dir);
  const loaded = await load(path, options.signal);
  if (!loaded.ok) return loaded;
  const servers = { ...loaded.servers };
  const error = change(servers, path);
  if (error !== undefined) return { ok: false, error };
  const document = { ...loaded.document, mcp_servers: servers };
  try {
    await write_atomically(path, `${JSON.stringify(document, null, 2)}\n`, options.signal);
  } catch (cause) {
    return { ok: false, error: `could not write ${path}: ${(cause as Error).message}` };
  }
  return { ok: true, path };
}

async function load(path: string, signal: AbortSignal | undefined): Promise<Loaded> {
  let text: string;
  try {
    text = await readFile(path, { encoding: 'utf8', signal });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { ok: true, document: {}, servers: {} };
    }
    return { ok: false, error: `could not read ${path}: ${(error as Error).message}` };
  }
  let document: unknown;
  try {
    document = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      error: `${path} is not valid JSON (${(error as Error).message}); nothing was changed`,
    };
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    return { ok: false, error: `${path} must hold a JSON object; nothing was changed` };
  }
  const record = document as ConfigDocument;
  const servers = record.mcp_servers ?? {};
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
    return { ok: false, error: `"mcp_servers" in ${path} must be an object; nothing was changed` };
  }
  return { ok: true, document: record, servers: servers as Record<string, unknown> };
}

/** Writes a sibling temp file, then renames it over `path`: readers see the old or the new file. */
async function write_atomically(path: string, text: string, signal?: AbortSignal): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // keep the mode of an existing file; a new one may hold secrets (headers, env), so owner-only
  const mode = await stat(path).then(
    (stats) => stats.mode & 0o777,
    () => 0o600,
  );
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text, { encoding: 'utf8', mode, flag: 'wx', signal });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

function summarize(name: string, entry: unknown): McpServerSummary {
  const record = (entry !== null && typeof entry === 'object' ? entry : {}) as Record<
    string,
    unknown
  >;
  const parsed = McpServerConfigSchema.safeParse(entry);
  const names = (value: unknown) =>
    value !== null && typeof value === 'object' ? Object.keys(value as object) : [];
  const strings = (value: unknown) =>
    Array.isArray(value)
      ? value.filter((item): item is string => typeof item === 'string')
      : undefined;
  const is_stdio = typeof record.command === 'string';
  const args = strings(record.args) ?? [];
  const summary: McpServerSummary = {
    name,
    kind: is_stdio ? 'stdio' : 'http',
    enabled: record.enabled !== false,
    target: is_stdio
      ? [record.command as string, ...args].map(quote).join(' ')
      : hide_password(String(record.url ?? '')),
    env_names: names(record.env),
    header_names: names(record.headers),
  };
  if (typeof record.timeout_ms === 'number') summary.timeout_ms = record.timeout_ms;
  const include = strings(record.tools_include);
  const exclude = strings(record.tools_exclude);
  if (include !== undefined) summary.tools_include = include;
  if (exclude !== undefined) summary.tools_exclude = exclude;
  if (!parsed.success) {
    summary.problem = parsed.error.issues
      .map((issue) => `${issue.path.map(String).join('.') || 'server'}: ${issue.message}`)
      .join('; ');
  }
  return summary;
}

function quote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function hide_password(url: string): string {
  return redact_secrets(url);
}
