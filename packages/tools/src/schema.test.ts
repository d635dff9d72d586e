import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { coerce_arguments, parse_arguments, to_json_schema } from './schema.js';

const params = z
  .object({
    path: z.string().describe('file path'),
    offset: z.number().int().min(1).optional(),
    limit: z.number().int().default(2000),
    replace_all: z.boolean().default(false),
    tags: z.array(z.string()).optional(),
    mode: z.enum(['a', 'b']).optional(),
  })
  .strict();

describe('to_json_schema', () => {
  it('describes the input shape: defaulted fields are not required, no $schema, no int noise', () => {
    const schema = to_json_schema(params);
    expect(schema.$schema).toBeUndefined();
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['path']);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.path).toEqual({ type: 'string', description: 'file path' });
    expect(properties.offset).toEqual({ type: 'integer', minimum: 1 });
    expect(properties.limit).toEqual({ type: 'integer', default: 2000 });
    expect(schema.additionalProperties).toBe(false);
  });

  it('renders a schema with a transform as permissive instead of throwing', () => {
    const schema = to_json_schema(z.object({ when: z.string().transform((text) => text.length) }));
    expect(schema.type).toBe('object');
  });
});

describe('coerce_arguments', () => {
  const schema = to_json_schema(params);

  it('turns numeric and boolean strings into numbers and booleans where wanted', () => {
    expect(
      coerce_arguments({ path: '12', offset: '3', limit: ' 40 ', replace_all: 'TRUE' }, schema),
    ).toEqual({ path: '12', offset: 3, limit: 40, replace_all: true });
  });

  it('parses arguments sent as a JSON string, and nested arrays sent as JSON text', () => {
    const doubled = JSON.stringify({ path: 'a', tags: '["x","y"]' });
    expect(coerce_arguments(doubled, schema)).toEqual({ path: 'a', tags: ['x', 'y'] });
  });

  it('drops null for optional fields and turns empty arguments into {}', () => {
    expect(coerce_arguments({ path: 'a', offset: null }, schema)).toEqual({ path: 'a' });
    expect(coerce_arguments(undefined, schema)).toEqual({});
    expect(coerce_arguments('', schema)).toEqual({});
  });

  it('leaves what it cannot fix for the validator', () => {
    expect(coerce_arguments({ path: 'a', offset: 'three' }, schema)).toEqual({
      path: 'a',
      offset: 'three',
    });
  });

  it('does not mutate its input', () => {
    const input = { path: 'a', offset: '2' };
    coerce_arguments(input, schema);
    expect(input.offset).toBe('2');
  });
});

describe('parse_arguments', () => {
  it('coerces against the JSON Schema even when the zod schema would take the value as sent', () => {
    // an MCP tool: zod takes any object, the server's JSON Schema wants numbers
    const json_schema = {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    };
    const result = parse_arguments('sum', z.record(z.string(), z.unknown()), json_schema, {
      a: 2,
      b: '3',
    });
    expect(result).toEqual({ ok: true, args: { a: 2, b: 3 } });
  });

  const schema = to_json_schema(params);

  it('validates coerced arguments and applies defaults', () => {
    const result = parse_arguments('read_file', params, schema, '{"path":"a","offset":"2"}');
    expect(result).toEqual({
      ok: true,
      args: { path: 'a', offset: 2, limit: 2000, replace_all: false },
    });
  });

  it('names each field at fault and what was expected', () => {
    const result = parse_arguments('read_file', params, schema, {
      offset: 'three',
      mode: 'c',
      extra: 1,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toContain('Invalid arguments for read_file');
    expect(result.error).toContain("'path': required, expected string");
    expect(result.error).toContain('\'offset\': expected number, got the string "three"');
    expect(result.error).toContain("'mode'");
    expect(result.error).toContain("unknown field 'extra'");
    expect(result.error).toContain('Parameters: path (string, required), offset (integer)');
  });

  it('explains arguments that are not a JSON object', () => {
    const result = parse_arguments('read_file', params, schema, '{"path": "a"');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain('expected a JSON object');
  });
});
