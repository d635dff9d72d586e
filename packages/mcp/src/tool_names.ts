/**
 * Names of MCP tools as the model sees them: `mcp_<server>_<tool>`, made safe for every provider
 * (`^[a-zA-Z0-9_-]{1,64}$`), stable across runs, collisions resolved the same way every time.
 */
import { createHash } from 'node:crypto';

/** The longest name any provider accepts. */
export const MAX_TOOL_NAME_LENGTH = 64;

const HASH_LENGTH = 8;

/** `mcp_<server>_<tool>` with every character outside `[a-zA-Z0-9_-]` replaced by `_` (not shortened). */
export function raw_mcp_tool_name(server: string, tool: string): string {
  return `mcp_${server}_${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/**
 * A server name as it stands in tool names: every character outside `[a-zA-Z0-9_-]` replaced by
 * `_` (`a.b` → `a_b`, so its tools are `mcp_a_b_<tool>`).
 */
export function safe_server_name(server: string): string {
  return server.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** A short hash of the server and the original tool name: the same pair always gives the same. */
export function tool_name_hash(server: string, tool: string): string {
  return createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, HASH_LENGTH);
}

/**
 * The registered name of `tool` of `server`.
 *
 * - The plain name `mcp_<server>_<tool>` when the tool's name is valid as written, it fits 64
 *   characters and `is_taken` says it is free; the server's name is made safe by
 *   `safe_server_name` (the user chose it, so `a.b` simply reads `a_b`).
 * - Otherwise (characters were replaced, it was too long, or the name is taken) the sanitised name
 *   is cut to leave room for `_` and an 8-character hash of server and tool, so two tools whose
 *   names differ only in replaced characters, or in what lies past the cut, still differ.
 * - Should even that be taken, a counter is appended (`_2`, `_3`…).
 *
 * Contract: never throws; the result always matches `^[a-zA-Z0-9_-]{1,64}$`.
 */
export function safe_mcp_tool_name(
  server: string,
  tool: string,
  is_taken: (name: string) => boolean = () => false,
): string {
  const raw = raw_mcp_tool_name(server, tool);
  const exact =
    raw === `mcp_${safe_server_name(server)}_${tool}` && raw.length <= MAX_TOOL_NAME_LENGTH;
  if (exact && !is_taken(raw)) return raw;
  const suffix = `_${tool_name_hash(server, tool)}`;
  const hashed = `${raw.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
  if (!is_taken(hashed)) return hashed;
  for (let counter = 2; ; counter++) {
    const tail = `_${counter}`;
    const candidate = `${hashed.slice(0, MAX_TOOL_NAME_LENGTH - tail.length)}${tail}`;
    if (!is_taken(candidate)) return candidate;
  }
}
