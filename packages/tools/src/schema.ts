/**
 * The bridge between a tool's zod schema and the model: the JSON Schema the model is shown, the
 * lenient coercion of what the model actually sends, and validation errors written for the model
 * to read and act on.
 */
import type { JsonSchema } from '@lich/core';
import { z } from 'zod';

/** The outcome of `parse_arguments`: the validated arguments, or a message naming what is wrong. */
export type ArgumentsResult<Args> = { ok: true; args: Args } | { ok: false; error: string };

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The JSON Schema of a zod schema's *input* shape, as the model should see it.
 *
 * Contract: never throws. Fields with a default are not `required` (the model may leave them
 * out); `$schema` is stripped; the ±2^53 bounds zod writes for every `.int()` are dropped (noise to
 * the model). A schema zod cannot express in JSON Schema (a transform, a custom check) is rendered
 * as permissive (`{}`) rather than failing. The result is always a `type: 'object'` schema when the
 * zod schema is an object.
 */
export function to_json_schema(schema: z.ZodType): JsonSchema {
  let generated: JsonSchema;
  try {
    generated = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  } catch {
    // a cycle or a shape zod refuses to render: better a permissive schema than no tool
    generated = { type: 'object' };
  }
  const { $schema: _dropped, ...rest } = generated;
  return strip_int_bounds(rest) as JsonSchema;
}

function strip_int_bounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strip_int_bounds);
  if (node === null || typeof node !== 'object') return node;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'minimum' && value === -MAX_SAFE) || (key === 'maximum' && value === MAX_SAFE)) {
      continue;
    }
    result[key] = strip_int_bounds(value);
  }
  return result;
}

/**
 * Bends what a model sent toward what `json_schema` asks for, before validation.
 *
 * Models often send `"3"` for 3, `"true"` for true, a whole argument object as a JSON string
 * (double-encoded), `null` for an optional field, or a nested array as JSON text. This fixes
 * exactly those cases and leaves everything else for the validator to report:
 * - a string argument list that parses to an object is parsed; `undefined`, `null` and `""`
 *   become `{}` when an object is wanted;
 * - a numeric string becomes a number where only a number or integer is accepted;
 * - `"true"` / `"false"` become booleans where only a boolean is accepted;
 * - a string holding a JSON array or object is parsed where only an array or object is accepted;
 * - `null` for a property that is not required and does not accept null is dropped.
 *
 * Contract: never throws, never mutates `value`; follows local `$ref`s into `$defs`.
 */
export function coerce_arguments(value: unknown, json_schema: JsonSchema): unknown {
  let top = value;
  if (top === undefined || top === null || (typeof top === 'string' && top.trim() === '')) {
    top = {};
  } else if (typeof top === 'string') {
    const parsed = try_parse_json(top);
    if (parsed !== undefined && typeof parsed === 'object' && parsed !== null) top = parsed;
  }
  return coerce_node(top, json_schema, json_schema, 0);
}

function try_parse_json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

type SchemaNode = { [key: string]: unknown };

function as_node(value: unknown): SchemaNode | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as SchemaNode)
    : undefined;
}

function resolve_ref(node: SchemaNode, root: SchemaNode): SchemaNode {
  let current = node;
  for (let hops = 0; hops < 16 && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/')) return current;
    let target: unknown = root;
    for (const part of ref.slice(2).split('/')) {
      target = as_node(target)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    const resolved = as_node(target);
    if (resolved === undefined) return current;
    current = resolved;
  }
  return current;
}

/** The JSON types a schema node accepts, or undefined when it does not say (accepts anything). */
function accepted_types(
  node: SchemaNode,
  root: SchemaNode,
  depth: number,
): Set<string> | undefined {
  if (depth > 32) return undefined;
  const resolved = resolve_ref(node, root);
  if (typeof resolved.type === 'string') return new Set([resolved.type]);
  if (Array.isArray(resolved.type)) return new Set(resolved.type.map(String));
  if ('const' in resolved) return new Set([json_type(resolved.const)]);
  if (Array.isArray(resolved.enum)) return new Set(resolved.enum.map(json_type));
  const branches = (resolved.anyOf ?? resolved.oneOf) as unknown;
  if (Array.isArray(branches)) {
    const all = new Set<string>();
    for (const branch of branches) {
      const branch_node = as_node(branch);
      const types = branch_node ? accepted_types(branch_node, root, depth + 1) : undefined;
      if (types === undefined) return undefined;
      for (const type of types) all.add(type);
    }
    return all;
  }
  return undefined;
}

function json_type(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function accepts(types: Set<string>, value: unknown): boolean {
  const type = json_type(value);
  if (types.has(type)) return true;
  return type === 'integer' && types.has('number');
}

const NUMERIC = /^\s*-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

function coerce_node(value: unknown, raw_node: unknown, root: SchemaNode, depth: number): unknown {
  const given = as_node(raw_node);
  if (given === undefined || depth > 32) return value;
  const node = resolve_ref(given, root);
  const types = accepted_types(node, root, depth);
  let current = value;
  if (types !== undefined && !accepts(types, current)) current = coerce_scalar(current, types);
  if (Array.isArray(current)) {
    const items = as_node(node.items);
    if (items === undefined) return current;
    return current.map((item) => coerce_node(item, items, root, depth + 1));
  }
  const object = as_node(current);
  if (object === undefined) return current;
  const properties = as_node(node.properties);
  const branches = (node.anyOf ?? node.oneOf) as unknown;
  if (properties === undefined) {
    // a union of object shapes: coerce along the first branch that declares properties
    if (Array.isArray(branches)) {
      for (const branch of branches) {
        const branch_node = as_node(branch);
        if (branch_node && as_node(resolve_ref(branch_node, root).properties)) {
          return coerce_node(current, branch_node, root, depth + 1);
        }
      }
    }
    return current;
  }
  const required = new Set(Array.isArray(node.required) ? node.required.map(String) : []);
  const result: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(object)) {
    const field_schema = as_node(properties[key]);
    if (field_schema === undefined) {
      result[key] = field;
      continue;
    }
    if (field === null && !required.has(key)) {
      const field_types = accepted_types(field_schema, root, depth + 1);
      if (field_types !== undefined && !field_types.has('null')) continue;
    }
    result[key] = coerce_node(field, field_schema, root, depth + 1);
  }
  return result;
}

function coerce_scalar(value: unknown, types: Set<string>): unknown {
  if (typeof value !== 'string') return value;
  if ((types.has('number') || types.has('integer')) && NUMERIC.test(value)) {
    const number = Number(value);
    if (Number.isFinite(number)) return number;
  }
  if (types.has('boolean')) {
    const lowered = value.trim().toLowerCase();
    if (lowered === 'true') return true;
    if (lowered === 'false') return false;
  }
  if (types.has('array') || types.has('object')) {
    const parsed = try_parse_json(value);
    if (parsed !== null && typeof parsed === 'object' && accepts(types, parsed)) return parsed;
  }
  if (types.has('null') && value.trim() === 'null') return null;
  return value;
}

/**
 * Coerces and validates a model's arguments for one tool.
 *
 * Contract: never throws. On failure `error` is a few lines naming the tool, each field at fault
 * and what was expected, followed by the parameters the tool takes, written for the model.
 */
export function parse_arguments<Args>(
  tool_name: string,
  schema: z.ZodType<Args>,
  json_schema: JsonSchema,
  raw: unknown,
): ArgumentsResult<Args> {
  if (typeof raw === 'string' && raw.trim() !== '') {
    const parsed = try_parse_json(raw);
    if (parsed === undefined || typeof parsed !== 'object' || parsed === null) {
      return {
        ok: false,
        error: `Invalid arguments for ${tool_name}: expected a JSON object, got text that is not one (${preview(raw)}).\n${describe_parameters(json_schema)}`,
      };
    }
  }
  // Always coerced first, even arguments the zod schema accepts as sent: a tool's zod schema may
  // be looser than the JSON Schema the model is shown (an MCP tool's is the server's), and the
  // coercion follows the JSON Schema.
  const coerced = coerce_arguments(raw, json_schema);
  let outcome: ReturnType<typeof schema.safeParse>;
  try {
    outcome = schema.safeParse(coerced);
  } catch (error) {
    // a refinement written by the tool threw: still data, not a crash
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `Invalid arguments for ${tool_name}: ${reason}` };
  }
  if (outcome.success) return { ok: true, args: outcome.data };
  const lines = outcome.error.issues.map((issue) => `- ${describe_issue(issue, coerced)}`);
  return {
    ok: false,
    error: `Invalid arguments for ${tool_name}:\n${lines.join('\n')}\n${describe_parameters(json_schema)}`,
  };
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 80 ? `${flat.slice(0, 80)}…` : flat;
}

function field_name(path: readonly PropertyKey[]): string {
  let name = '';
  for (const part of path) {
    if (typeof part === 'number') name += `[${part}]`;
    else name += name === '' ? String(part) : `.${String(part)}`;
  }
  return name;
}

function value_at(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

function describe_issue(issue: z.core.$ZodIssue, input: unknown): string {
  const name = field_name(issue.path);
  const at = name === '' ? 'arguments' : `'${name}'`;
  switch (issue.code) {
    case 'invalid_type': {
      const received = value_at(input, issue.path);
      if (received === undefined) return `${at}: required, expected ${issue.expected}`;
      return `${at}: expected ${issue.expected}, got ${describe_value(received)}`;
    }
    case 'unrecognized_keys':
      return `${at}: unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `'${key}'`).join(', ')}`;
    default:
      return `${at}: ${issue.message}`;
  }
}

function describe_value(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(preview(value))}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** One line listing a tool's parameters, e.g. `Parameters: path (string, required), offset (integer)`. */
export function describe_parameters(json_schema: JsonSchema): string {
  const properties = as_node(json_schema.properties);
  if (properties === undefined || Object.keys(properties).length === 0) {
    return 'This tool takes no parameters.';
  }
  const required = new Set(
    Array.isArray(json_schema.required) ? json_schema.required.map(String) : [],
  );
  const parts = Object.entries(properties).map(([key, field]) => {
    const types = as_node(field)
      ? accepted_types(as_node(field) as SchemaNode, json_schema, 0)
      : undefined;
    const kind = types === undefined ? 'any' : [...types].join(' | ');
    return `${key} (${kind}${required.has(key) ? ', required' : ''})`;
  });
  return `Parameters: ${parts.join(', ')}.`;
}
