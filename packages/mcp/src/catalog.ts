/**
 * The MCP server catalog: the `mcp_servers` section of Lich's config, and the import of the
 * `mcpServers` JSON that other tools write (`.mcp.json`, Claude Desktop, Cursor, VS Code, Windsurf).
 */
import { z } from 'zod';

/** What a server name may be: it becomes part of tool names and config keys. */
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The time limit of initialize and of each call when a server sets none. */
export const DEFAULT_MCP_TIMEOUT_MS = 30_000;

const name_list = z.array(z.string().min(1));

const common_fields = {
  /** False keeps the server in the config without connecting it. */
  enabled: z.boolean().default(true),
  /** Time limit of initialize and of each tool call, in milliseconds (30 s when absent). */
  timeout_ms: z.number().int().positive().max(86_400_000).optional(),
  /** Only these tools of the server are registered (exact names, `*` matches any run). */
  tools_include: name_list.optional(),
  /** These tools of the server are never registered (exact names, `*` matches any run). */
  tools_exclude: name_list.optional(),
  /**
   * The server's tools can change files in the work dir: the first call of one in a prompt takes
   * a checkpoint first, so `/rewind` can undo it.
   */
  writes: z.boolean().optional(),
};

/** A server Lich starts as a child process and talks to over stdin/stdout. */
export const McpStdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /** The child's whole environment besides PATH and HOME; `${VAR}` takes Lich's own VAR. */
  env: z.record(z.string(), z.string()).optional(),
  /** Working directory of the child, relative to the work dir. */
  cwd: z.string().min(1).optional(),
  ...common_fields,
});

/** A server Lich reaches over HTTP: Streamable HTTP, or the legacy SSE transport. */
export const McpHttpServerSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'url must be an http:// or https:// URL' }),
  /** Sent with every request (e.g. `Authorization`); `${VAR}` takes Lich's own VAR. */
  headers: z.record(z.string(), z.string()).optional(),
  /** `streamable_http` (the default) or the deprecated `sse` transport. */
  transport: z.enum(['streamable_http', 'sse']).optional(),
  ...common_fields,
});

/** One server of the catalog: a stdio command or an HTTP url, never both. */
export const McpServerConfigSchema = z.union([McpStdioServerSchema, McpHttpServerSchema], {
  error: () =>
    'an MCP server needs either "command" (a stdio server) or "url" (an HTTP server), not both',
});

/** The `mcp_servers` section: server name → server. */
export const McpServersSchema = z.record(
  z.string().regex(MCP_SERVER_NAME_PATTERN, {
    error:
      'a server name is 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit',
  }),
  McpServerConfigSchema,
);

/** A stdio server after parsing (defaults applied). */
export type McpStdioServerConfig = z.output<typeof McpStdioServerSchema>;
/** An HTTP server after parsing (defaults applied). */
export type McpHttpServerConfig = z.output<typeof McpHttpServerSchema>;
/** One server after parsing. */
export type McpServerConfig = z.output<typeof McpServerConfigSchema>;
/** One server as written in a config file (defaults not yet applied). */
export type McpServerConfigInput = z.input<typeof McpServerConfigSchema>;
/** The parsed `mcp_servers` section. */
export type McpCatalog = z.output<typeof McpServersSchema>;

/** True for a server started as a child process. */
export function is_stdio_server(config: McpServerConfig): config is McpStdioServerConfig {
  return 'command' in config;
}

/** The outcome of `parse_mcp_catalog`. */
export type CatalogResult = { ok: true; catalog: McpCatalog } | { ok: false; error: string };

/**
 * Parses an `mcp_servers` value.
 *
 * Contract: never throws; an invalid value gives `ok: false` with one line per problem, each
 * naming the server and the field.
 */
export function parse_mcp_catalog(value: unknown): CatalogResult {
  const parsed = McpServersSchema.safeParse(value ?? {});
  if (parsed.success) return { ok: true, catalog: parsed.data };
  const lines = parsed.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    // a bad record key carries the key schema's own message one level down
    const message =
      issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    return path === '' ? message : `${path}: ${message}`;
  });
  return { ok: false, error: `invalid mcp_servers: ${lines.join('; ')}` };
}

/** The outcome of `import_mcp_json`: the servers in Lich's shape, and what was left out. */
export type ImportResult =
  | { ok: true; servers: Record<string, McpServerConfigInput>; warnings: string[] }
  | { ok: false; error: string };

/** Fields of other tools' entries that Lich maps; anything else is reported as ignored. */
const KNOWN_FIELDS = new Set([
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'serverUrl',
  'headers',
  'type',
  'transport',
  'disabled',
  'enabled',
]);

/**
 * Converts the `mcpServers` JSON other tools use into the `mcp_servers` shape.
 *
 * Accepts the parsed object or its JSON text, with the servers under `mcpServers` (Claude
 * Desktop, `.mcp.json`, Cursor, Windsurf) or `servers` (VS Code). Each entry is
 * `{ command, args?, env?, cwd? }` or `{ url | serverUrl, headers?, type? }`, where `type` is
 * `stdio`, `http`, `streamable-http` or `sse`; `disabled: true` becomes `enabled: false`.
 *
 * Contract: never throws. A file without a server map is `ok: false`; an entry that cannot be
 * converted is left out with a warning naming it, and fields Lich does not use are named in a
 * warning. Every returned entry passes `McpServerConfigSchema`.
 */
export function import_mcp_json(json: unknown): ImportResult {
  let document = json;
  if (typeof document === 'string') {
    try {
      document = JSON.parse(document);
    } catch (error) {
      return { ok: false, error: `not valid JSON: ${(error as Error).message}` };
    }
  }
  if (!is_record(document)) return { ok: false, error: 'expected a JSON object' };
  const map = document.mcpServers ?? document.servers;
  if (!is_record(map)) {
    return { ok: false, error: 'no "mcpServers" (or "servers") object found' };
  }
  const servers: Record<string, McpServerConfigInput> = {};
  const warnings: string[] = [];
  for (const [name, entry] of Object.entries(map)) {
    const converted = convert_entry(name, entry);
    if (!converted.ok) {
      warnings.push(`skipped server '${name}': ${converted.error}`);
      continue;
    }
    if (Object.hasOwn(servers, converted.name)) {
      warnings.push(`skipped server '${name}': the name '${converted.name}' is already taken`);
      continue;
    }
    warnings.push(...converted.warnings);
    servers[converted.name] = converted.config;
  }
  return { ok: true, servers, warnings };
}

type Converted =
  | { ok: true; name: string; config: McpServerConfigInput; warnings: string[] }
  | { ok: false; error: string };

function convert_entry(original_name: string, entry: unknown): Converted {
  if (!is_record(entry)) return { ok: false, error: 'not an object' };
  const warnings: string[] = [];
  let name = original_name;
  if (!MCP_SERVER_NAME_PATTERN.test(name)) {
    name = name
      .replace(/[^A-Za-z0-9_.-]/g, '_')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 64);
    if (name === '') return { ok: false, error: 'the name has no usable characters' };
    warnings.push(`server '${original_name}' imported as '${name}'`);
  }
  const ignored = Object.keys(entry).filter((key) => !KNOWN_FIELDS.has(key));
  if (ignored.length > 0) {
    warnings.push(`server '${name}': ignored ${ignored.map((key) => `"${key}"`).join(', ')}`);
  }
  const type = typeof entry.type === 'string' ? entry.type.toLowerCase() : undefined;
  const url = typeof entry.url === 'string' ? entry.url : entry.serverUrl;
  const enabled =
    entry.disabled === true || entry.enabled === false ? { enabled: false as const } : {};
  let candidate: Record<string, unknown>;
  if (typeof entry.command === 'string' && (type === undefined || type === 'stdio')) {
    candidate = {
      command: entry.command,
      ...(entry.args !== undefined ? { args: entry.args } : {}),
      ...(entry.env !== undefined ? { env: entry.env } : {}),
      ...(entry.cwd !== undefined ? { cwd: entry.cwd } : {}),
      ...enabled,
    };
  } else if (typeof url === 'string') {
    if (
      type !== undefined &&
      !['http', 'streamable-http', 'streamablehttp', 'sse'].includes(type)
    ) {
      return { ok: false, error: `unknown type "${type}"` };
    }
    candidate = {
      url,
      ...(entry.headers !== undefined ? { headers: entry.headers } : {}),
      ...(type === 'sse' ? { transport: 'sse' } : {}),
      ...enabled,
    };
  } else {
    return { ok: false, error: 'it has neither "command" nor "url"' };
  }
  const parsed = McpServerConfigSchema.safeParse(candidate);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((issue) => `${issue.path.map(String).join('.') || 'entry'}: ${issue.message}`)
      .join('; ');
    return { ok: false, error: detail };
  }
  return { ok: true, name, config: candidate as McpServerConfigInput, warnings };
}

function is_record(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
