/**
 * The schema keywords the Gemini API accepts in function parameters (its OpenAPI 3.0 subset).
 * Anything else (`$schema`, `additionalProperties`, `const`, `oneOf`, `$ref`…) makes it refuse
 * the whole request, so it is mapped or dropped here.
 */
const KEPT = new Set([
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

/** The formats it accepts, per type; another format is dropped (the type stays). */
const FORMATS: Record<string, ReadonlySet<string>> = {
  string: new Set(['enum', 'date-time']),
  integer: new Set(['int32', 'int64']),
  number: new Set(['float', 'double']),
};

const MAX_DEPTH = 32;

type Schema = Record<string, unknown>;

function is_schema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A tool's JSON Schema in the subset the Gemini API accepts, or `undefined` when nothing of it
 * is left to send (an object without properties, which the API refuses: the tool then takes no
 * parameters).
 *
 * Contract: pure, never throws, the input is not mutated. It keeps `type`, `format` (the ones the
 * API knows), `description`, `enum` (strings only), `items`, `properties`, `required` (only names
 * that are properties), bounds, `pattern`, `default` and `anyOf`; maps `type: [T, 'null']` to `T`
 * with `nullable`, `const` to a one-value `enum`, `oneOf` to `anyOf`, a one-schema `allOf` to that
 * schema, and a local `$ref` (`#/$defs/…`, `#/definitions/…`) to the schema it names (depth
 * bounded); drops every other keyword. A nested object without properties loses its `type` (the
 * API would refuse it; the description says what it holds).
 */
export function to_gemini_schema(schema: unknown): Schema | undefined {
  if (!is_schema(schema)) return undefined;
  const mapped = map_schema(schema, schema, 0);
  if (mapped.type === undefined && mapped.properties === undefined) return undefined;
  if (mapped.type === 'object' && mapped.properties === undefined) return undefined;
  return mapped;
}

function resolve_ref(ref: unknown, root: Schema): Schema | undefined {
  if (typeof ref !== 'string') return undefined;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (match === null) return undefined;
  const defs = root[match[1] as string];
  const target = is_schema(defs) ? defs[decodeURIComponent(match[2] as string)] : undefined;
  return is_schema(target) ? target : undefined;
}

function map_schema(input: Schema, root: Schema, depth: number): Schema {
  if (depth > MAX_DEPTH) return {};
  let schema = input;
  const all_of = schema.allOf;
  if (Array.isArray(all_of) && all_of.length === 1 && is_schema(all_of[0])) {
    const { allOf: _all, ...rest } = schema;
    schema = { ...all_of[0], ...rest };
  }
  const referenced = resolve_ref(schema.$ref, root);
  if (referenced !== undefined) {
    const { $ref: _ref, ...rest } = schema;
    schema = { ...referenced, ...rest };
  }
  const out: Schema = {};
  let type = schema.type;
  if (Array.isArray(type)) {
    const types = type.filter((entry) => entry !== 'null');
    if (types.length < type.length) out.nullable = true;
    type = types.length === 1 ? types[0] : undefined;
  }
  if (typeof type === 'string' && type !== 'null') out.type = type;
  for (const [key, value] of Object.entries(schema)) {
    if (!KEPT.has(key) || key === 'type') continue;
    switch (key) {
      case 'format':
        if (typeof type === 'string' && FORMATS[type]?.has(String(value))) out.format = value;
        break;
      case 'enum': {
        const strings = Array.isArray(value)
          ? value.filter((entry) => typeof entry === 'string')
          : [];
        if (strings.length > 0 && (type === undefined || type === 'string')) {
          out.enum = strings;
          out.type = 'string';
        }
        break;
      }
      case 'items':
        if (is_schema(value)) out.items = map_schema(value, root, depth + 1);
        break;
      case 'properties':
        if (is_schema(value)) {
          const properties: Schema = {};
          for (const [name, property] of Object.entries(value)) {
            if (is_schema(property)) properties[name] = map_schema(property, root, depth + 1);
          }
          if (Object.keys(properties).length > 0) out.properties = properties;
        }
        break;
      case 'anyOf':
        if (Array.isArray(value)) out.anyOf = any_of(value, root, depth);
        break;
      default:
        out[key] = value;
    }
  }
  if (Array.isArray(schema.oneOf) && out.anyOf === undefined) {
    out.anyOf = any_of(schema.oneOf, root, depth);
  }
  if (schema.const !== undefined && typeof schema.const === 'string') {
    out.type = 'string';
    out.enum = [schema.const];
  }
  const properties = is_schema(out.properties) ? out.properties : undefined;
  if (Array.isArray(out.required)) {
    const required = out.required.filter(
      (name): name is string => typeof name === 'string' && properties?.[name] !== undefined,
    );
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  if (out.type === 'object' && properties === undefined) {
    delete out.type;
    delete out.required;
  }
  if (Array.isArray(out.anyOf) && out.anyOf.length === 0) delete out.anyOf;
  return out;
}

/** The alternatives of an `anyOf` / `oneOf`: a `{ type: 'null' }` one becomes `nullable`. */
function any_of(values: unknown[], root: Schema, depth: number): Schema[] {
  return values
    .filter(is_schema)
    .filter((entry) => entry.type !== 'null')
    .map((entry) => map_schema(entry, root, depth + 1));
}
