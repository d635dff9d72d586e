import { mkdir, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError } from './config_error.js';
import { CONFIG_FILE_SCHEMA } from './config_schema.js';
import { MAX_JSON_DEPTH, scan_jsonc } from './jsonc.js';
import { read_regular_file } from './read_regular_file.js';
import { find_unknown_keys } from './unknown_keys.js';

/** `$XDG_CONFIG_HOME/lich/config.json`, or `~/.config/lich/config.json`. */
export function user_config_path(env: Readonly<Record<string, string | undefined>>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'lich', 'config.json');
}

/** `<work_dir>/.lich/config.json`. */
export function project_config_path(work_dir: string): string {
  return join(work_dir, '.lich', 'config.json');
}

/** The largest config file read (1 MiB); a bigger one is refused as a mistake. */
export const CONFIG_FILE_MAX_BYTES = 1024 * 1024;

/** A config file read and checked: its raw object (absent file: `undefined`) and its warnings. */
export type ReadConfigResult =
  | {
      ok: true;
      value: Record<string, unknown> | undefined;
      warnings: string[];
      /** The file held comments (a rewrite by `set_config_value` drops them). */
      had_comments?: boolean;
    }
  | { ok: false; error: ConfigError };

function line_and_column(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

/**
 * Parses config text: JSON with comments and trailing commas (JSONC, as editors write it), a
 * leading byte order mark allowed. A syntax error, nesting deeper than `MAX_JSON_DEPTH` or a
 * value of the wrong type becomes a ConfigError naming `source`, the line or the key path.
 */
export function parse_config_text(text: string, source: string): ReadConfigResult {
  const scan = scan_jsonc(text);
  if (scan.depth > MAX_JSON_DEPTH) {
    return {
      ok: false,
      error: new ConfigError(
        `${source}: nested ${scan.depth} levels deep; a config may nest at most ${MAX_JSON_DEPTH}`,
        { source },
      ),
    };
  }
  let value: unknown;
  try {
    value = scan.json.trim() === '' ? {} : JSON.parse(scan.json);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message)?.[1];
    const where = position === undefined ? '' : ` at ${line_and_column(text, Number(position))}`;
    return {
      ok: false,
      error: new ConfigError(`${source}: not valid JSON${where}: ${message}`, { source }),
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      error: new ConfigError(`${source}: expected a JSON object at the top level`, { source }),
    };
  }
  const warnings = find_unknown_keys(value, CONFIG_FILE_SCHEMA).map(
    (unknown) =>
      `${source}: unknown key '${unknown.path}'` +
      (unknown.nearest ? ` (did you mean '${unknown.nearest}'?)` : ' (ignored)'),
  );
  const checked = CONFIG_FILE_SCHEMA.safeParse(value);
  if (!checked.success)
    return { ok: false, error: ConfigError.from_issues(source, checked.error.issues) };
  return { ok: true, value: value as Record<string, unknown>, warnings };
}

/**
 * Reads and checks one config file. A missing file is `{ ok: true, value: undefined }` unless
 * `required`. Only a regular file of at most `CONFIG_FILE_MAX_BYTES` is read: a folder, a FIFO
 * (which never makes it wait), a device such as `/dev/zero`, a file too large, an unreadable or
 * invalid file are `{ ok: false }` with a ConfigError naming the file and, for a bad value, the
 * key path and what was expected. Unknown keys are warnings, not errors. Never throws.
 */
export async function read_config_file(
  path: string,
  options: { required?: boolean; signal?: AbortSignal } = {},
): Promise<ReadConfigResult> {
  const read = await read_regular_file(path, {
    max_bytes: CONFIG_FILE_MAX_BYTES,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!read.ok) {
    if (read.reason === 'missing' && !options.required) {
      return { ok: true, value: undefined, warnings: [] };
    }
    return { ok: false, error: new ConfigError(read.message, { source: path }) };
  }
  const parsed = parse_config_text(read.text, path);
  if (parsed.ok && scan_jsonc(read.text).had_comments) {
    return { ...parsed, had_comments: true };
  }
  return parsed;
}

/**
 * Writes `value` as pretty JSON to `path` (folders created), through a temporary file and a
 * rename so a crash never leaves half a config. Rejects on I/O failure.
 */
export async function write_config_file(
  path: string,
  value: Record<string, unknown>,
  options: { signal?: AbortSignal } = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, {
    encoding: 'utf8',
    signal: options.signal,
  });
  await rename(temporary, path);
}

/**
 * Parses a value typed on the command line: JSON when it parses (`42`, `true`, `["a"]`), the
 * plain string otherwise.
 */
export function parse_cli_value(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** What `set_config_value` did. */
export type SetConfigResult =
  | {
      ok: true;
      /** False when nothing was written: an unset of a key the file does not hold. */
      changed: boolean;
      warnings: string[];
    }
  | { ok: false; error: ConfigError };

/**
 * Sets (or with `value === undefined`, removes) the dotted `key_path` in the config file at
 * `path`, and writes the file only if the result is still a valid config. An unknown key is a
 * ConfigError naming the nearest known one; removing a key the file does not hold changes
 * nothing and creates no file (`changed: false`). Resolves with the warnings (comments the
 * rewrite dropped among them) or a ConfigError; rejects only on I/O failure while writing.
 */
export async function set_config_value(
  path: string,
  key_path: string,
  value: unknown,
  options: { signal?: AbortSignal } = {},
): Promise<SetConfigResult> {
  const keys = key_path.split('.').filter((key) => key.length > 0);
  if (keys.length === 0) {
    return { ok: false, error: new ConfigError('a key is required, e.g. max_turns') };
  }
  const unknown = find_unknown_keys(nest(keys, null), CONFIG_FILE_SCHEMA).find(
    (entry) => key_path === entry.path || key_path.startsWith(`${entry.path}.`),
  );
  const unknown_error = (): SetConfigResult => {
    const hint = unknown?.nearest ? ` (did you mean '${unknown.nearest}'?)` : '';
    return {
      ok: false,
      error: new ConfigError(`unknown key '${unknown?.path}'${hint}`, { key_path: unknown?.path }),
    };
  };
  // An unknown key may still be removed from a file that holds it (a typo warned about).
  if (unknown && value !== undefined) return unknown_error();
  if (value !== undefined) {
    const depth = scan_jsonc(JSON.stringify(value) ?? '').depth + keys.length;
    if (depth > MAX_JSON_DEPTH) {
      return {
        ok: false,
        error: new ConfigError(
          `${key_path}: the value nests ${depth} levels deep; a config may nest at most ${MAX_JSON_DEPTH}`,
          { key_path },
        ),
      };
    }
  }
  const read = await read_config_file(path, options);
  if (!read.ok) return read;
  const root: Record<string, unknown> = structuredClone(read.value ?? {});
  let node: Record<string, unknown> = root;
  for (const key of keys.slice(0, -1)) {
    const child = node[key];
    if (typeof child !== 'object' || child === null) {
      if (value === undefined) {
        return unknown ? unknown_error() : { ok: true, changed: false, warnings: [] };
      }
      node[key] = {};
    }
    node = node[key] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1] as string;
  if (value === undefined) {
    if (!Object.hasOwn(node, last)) {
      return unknown ? unknown_error() : { ok: true, changed: false, warnings: [] };
    }
    delete node[last];
  } else {
    node[last] = value;
  }
  const checked = parse_config_text(JSON.stringify(root), path);
  if (!checked.ok) return checked;
  await write_config_file(path, root, options);
  const warnings = [...checked.warnings];
  if (read.had_comments) warnings.push(`${path} held comments; they were not kept`);
  return { ok: true, changed: true, warnings };
}

/** `{ a: { b: leaf } }` for `['a', 'b']`; numeric keys stay object keys (no arrays are made). */
function nest(keys: readonly string[], leaf: unknown): unknown {
  return keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), leaf);
}
