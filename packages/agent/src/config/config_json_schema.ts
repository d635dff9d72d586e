import { createRequire } from 'node:module';
import { z } from 'zod';
import { CONFIG_FILE_SCHEMA } from './config_schema.js';

let schema_path: string | undefined;

/**
 * The absolute path of `config.schema.json`, shipped at the package root. `lich init` points a
 * new config's `$schema` at it so editors complete and check the keys. Resolved through the
 * package's exports (so it stays right when this code is bundled into another package) on the
 * first call, not when the module loads: resolving costs a few file lookups. Throws only if the
 * package is broken.
 */
export function config_schema_path(): string {
  schema_path ??= createRequire(import.meta.url).resolve('@lich/agent/config.schema.json');
  return schema_path;
}

/** `config_schema_path()`, computed when the module loads (dropped by bundlers when unused). */
export const CONFIG_SCHEMA_PATH: string = /* @__PURE__ */ config_schema_path();

/**
 * The JSON Schema (draft 2020-12) of a config file, generated from the zod schema: what the
 * shipped `config.schema.json` holds. Pure; never throws.
 */
export function config_json_schema(): Record<string, unknown> {
  return z.toJSONSchema(CONFIG_FILE_SCHEMA, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
}
