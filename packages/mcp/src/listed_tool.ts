/**
 * One entry of a server's `tools/list`, checked on its own: a tool with a broken schema is
 * left out with a reason, and the server's other tools still register.
 */
import type { JsonSchema } from '@lich/core';

/** A tool a server offers, with the schema the model will be shown. */
export interface McpListedTool {
  /** The server's own name for the tool (what `tools/call` takes). */
  name: string;
  description: string;
  /** The server's `inputSchema`, sanitised: always `type: 'object'` with `properties`. */
  input_schema: JsonSchema;
}

/** The outcome of `parse_listed_tool`. */
export type ListedToolResult =
  | { ok: true; tool: McpListedTool }
  | { ok: false; name: string; error: string };

const MAX_DESCRIPTION_CHARS = 4096;

/**
 * Checks one `tools/list` entry and sanitises its input schema for the model.
 *
 * Rules: the name is a non-empty string; `inputSchema` is an object whose `type` is `'object'`
 * (absent `type` is taken as object when there is nothing else to say it is not); `properties`,
 * when present, is an object; `required`, when present, is a list of strings. The top-level
 * `$schema` is dropped (several providers refuse it) and an empty `properties` is added when
 * missing. The description falls back to the title, then to a generic line, and is capped.
 *
 * Contract: never throws; never mutates `entry`.
 */
export function parse_listed_tool(entry: unknown, server: string): ListedToolResult {
  if (!is_record(entry)) return { ok: false, name: '?', error: 'the entry is not an object' };
  const name = entry.name;
  if (typeof name !== 'string' || name === '') {
    return { ok: false, name: '?', error: 'the tool has no name' };
  }
  const schema = entry.inputSchema;
  if (!is_record(schema)) {
    return { ok: false, name, error: 'its inputSchema is missing or not an object' };
  }
  const type = schema.type ?? 'object';
  if (type !== 'object') {
    return {
      ok: false,
      name,
      error: `its inputSchema must describe an object, not ${JSON.stringify(type)}`,
    };
  }
  if (schema.properties !== undefined && !is_record(schema.properties)) {
    return { ok: false, name, error: 'its inputSchema.properties is not an object' };
  }
  if (
    schema.required !== undefined &&
    (!Array.isArray(schema.required) || schema.required.some((item) => typeof item !== 'string'))
  ) {
    return { ok: false, name, error: 'its inputSchema.required is not a list of names' };
  }
  const { $schema: _dropped, ...rest } = schema;
  const input_schema: JsonSchema = { ...rest, type: 'object', properties: schema.properties ?? {} };
  const text =
    typeof entry.description === 'string' && entry.description.trim() !== ''
      ? entry.description
      : typeof entry.title === 'string' && entry.title.trim() !== ''
        ? entry.title
        : `Tool '${name}' of the MCP server '${server}'.`;
  const description =
    text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}…` : text;
  return { ok: true, tool: { name, description, input_schema } };
}

function is_record(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
