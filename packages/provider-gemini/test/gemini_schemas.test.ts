/**
 * Gemini refuses a whole request for one schema keyword outside its subset: every builtin tool's
 * schema and every tool of the MCP reference servers (server-everything and server-filesystem,
 * their `tools/list` recorded in fixtures/) must map to that subset.
 */
import { readFileSync } from 'node:fs';
import { BUILTIN_TOOLS, ToolRegistry } from '@lich/tools';
import { describe, expect, it } from 'vitest';
import { to_gemini_schema } from '../src/index.js';

const KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'items',
  'minItems',
  'maxItems',
  'properties',
  'required',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'default',
  'anyOf',
]);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

/** Every way `schema` leaves the subset, as `path: why`. */
function violations(schema: unknown, path = '$'): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return [`${path}: not a schema object`];
  }
  const found: string[] = [];
  const record = schema as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    if (!KEYWORDS.has(key)) found.push(`${path}.${key}: not accepted`);
    if (key === 'type' && !TYPES.has(String(value))) found.push(`${path}.type: ${String(value)}`);
    if (
      key === 'enum' &&
      (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string'))
    ) {
      found.push(`${path}.enum: not all strings`);
    }
  }
  if (record.type === 'object' && record.properties === undefined) {
    found.push(`${path}: an object without properties`);
  }
  const properties = record.properties as Record<string, unknown> | undefined;
  for (const [name, property] of Object.entries(properties ?? {})) {
    found.push(...violations(property, `${path}.properties.${name}`));
  }
  for (const name of (record.required as string[] | undefined) ?? []) {
    if (properties?.[name] === undefined) found.push(`${path}.required: ${name} is no property`);
  }
  if (record.items !== undefined) found.push(...violations(record.items, `${path}.items`));
  for (const [index, option] of ((record.anyOf as unknown[] | undefined) ?? []).entries()) {
    found.push(...violations(option, `${path}.anyOf[${index}]`));
  }
  return found;
}

const registry = new ToolRegistry();
for (const tool of BUILTIN_TOOLS) registry.register(tool);
const builtins = registry.definitions();
const reference = JSON.parse(
  readFileSync(new URL('./fixtures/mcp_reference_tools.json', import.meta.url), 'utf8'),
) as Record<string, { name: string; inputSchema: unknown }[]>;
const mcp = Object.entries(reference).flatMap(([server, tools]) =>
  tools.map((tool) => ({ name: `mcp_${server}_${tool.name}`, parameters: tool.inputSchema })),
);

describe('Gemini schema mapping on the tools Lich offers', () => {
  it('has the builtins and both reference servers to check', () => {
    expect(builtins.map((tool) => tool.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'list_dir',
      'glob',
      'grep',
      'terminal',
      'run_tests',
      'web_fetch',
    ]);
    expect(mcp.length).toBeGreaterThan(20);
  });

  it.each([...builtins, ...mcp].map((tool) => [tool.name, tool.parameters] as const))(
    '%s maps into the subset, keeping its properties',
    (_name, parameters) => {
      const mapped = to_gemini_schema(parameters);
      const source = parameters as { properties?: Record<string, unknown> };
      const names = Object.keys(source.properties ?? {});
      if (names.length === 0) {
        expect(mapped).toBeUndefined();
        return;
      }
      expect(violations(mapped)).toEqual([]);
      expect(Object.keys((mapped?.properties as Record<string, unknown>) ?? {})).toEqual(names);
    },
  );
});
