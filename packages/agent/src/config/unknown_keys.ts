import { nearest_word } from '@lich/tools';
import { z } from 'zod';

/** A key a schema does not know, with the nearest key it does know (a likely typo). */
export interface UnknownKey {
  /** The dotted path of the key, e.g. `providers.0.modle`. */
  path: string;
  key: string;
  nearest?: string;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodNullable
    ) {
      current = current.unwrap() as z.ZodType;
    } else {
      return current;
    }
  }
}

function is_plain_object(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Every key in `value` that the object schemas of `schema` do not declare, found by walking
 * objects, arrays and records. Values the schema leaves open (`z.unknown()`, records of unknowns)
 * are not inspected. Never throws.
 */
export function find_unknown_keys(value: unknown, schema: z.ZodType, path = ''): UnknownKey[] {
  const found: UnknownKey[] = [];
  const inner = unwrap(schema);
  const join = (key: string | number) => (path ? `${path}.${key}` : String(key));
  if (inner instanceof z.ZodObject && is_plain_object(value)) {
    const shape = inner.shape as Record<string, z.ZodType>;
    const known = Object.keys(shape);
    for (const [key, child] of Object.entries(value)) {
      const child_schema = shape[key];
      if (child_schema === undefined) {
        const nearest = nearest_word(key, known);
        found.push(nearest ? { path: join(key), key, nearest } : { path: join(key), key });
      } else {
        found.push(...find_unknown_keys(child, child_schema, join(key)));
      }
    }
  } else if (inner instanceof z.ZodArray && Array.isArray(value)) {
    value.forEach((item, index) => {
      found.push(...find_unknown_keys(item, inner.element as z.ZodType, join(index)));
    });
  } else if (inner instanceof z.ZodRecord && is_plain_object(value)) {
    for (const [key, child] of Object.entries(value)) {
      found.push(...find_unknown_keys(child, inner.valueType as z.ZodType, join(key)));
    }
  }
  return found;
}
