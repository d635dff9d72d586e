import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError } from './config_error.js';
import { CONFIG_FILE_SCHEMA } from './config_schema.js';
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

/** A config file read and checked: its raw object (absent file: `undefined`) and its warnings. */
export type ReadConfigResult =
  | { ok: true; value: Record<string, unknown> | undefined; warnings: string[] }
  | { ok: false; error: ConfigError };

function line_and_column(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

/** Parses JSON text; a syntax error becomes a ConfigError naming `source` and the line. */
export function parse_config_text(text: string, source: string): ReadConfigResult {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
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
 * `required`; unreadable or invalid files are `{ ok: false }` with a ConfigError naming the file,
 * the key path and what was expected. Unknown keys are warnings, not errors. Never throws.
 */
export async function read_config_file(
  path: string,
  options: { required?: boolean; signal?: AbortSignal } = {},
): Promise<ReadConfigResult> {
  let text: string;
  try {
    text = await readFile(path, { encoding: 'utf8', signal: options.signal });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !options.required) return { ok: true, value: undefined, warnings: [] };
    const reason = code === 'ENOENT' ? 'no such file' : (error as Error).message;
    return {
      ok: false,
      error: new ConfigError(`${path}: ${reason}`, { source: path, cause: error }),
    };
  }
  return parse_config_text(text, path);
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

/**
 * Sets (or with `value === undefined`, removes) the dotted `key_path` in the config file at
 * `path`, and writes the file only if the result is still a valid config. Resolves with the
 * warnings or a ConfigError; rejects only on I/O failure while writing.
 */
export async function set_config_value(
  path: string,
  key_path: string,
  value: unknown,
  options: { signal?: AbortSignal } = {},
): Promise<{ ok: true; warnings: string[] } | { ok: false; error: ConfigError }> {
  const read = await read_config_file(path, options);
  if (!read.ok) return read;
  const root: Record<string, unknown> = structuredClone(read.value ?? {});
  const keys = key_path.split('.').filter((key) => key.length > 0);
  if (keys.length === 0) {
    return { ok: false, error: new ConfigError('a key is required, e.g. max_turns') };
  }
  let node: Record<string, unknown> = root;
  for (const key of keys.slice(0, -1)) {
    const child = node[key];
    if (typeof child !== 'object' || child === null) {
      if (value === undefined) return { ok: true, warnings: [] };
      node[key] = {};
    }
    node = node[key] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1] as string;
  if (value === undefined) delete node[last];
  else node[last] = value;
  const unknown = find_unknown_keys(root, CONFIG_FILE_SCHEMA).find(
    (entry) => key_path === entry.path || key_path.startsWith(`${entry.path}.`),
  );
  if (unknown && value !== undefined) {
    const hint = unknown.nearest ? ` (did you mean '${unknown.nearest}'?)` : '';
    return {
      ok: false,
      error: new ConfigError(`unknown key '${unknown.path}'${hint}`, { key_path: unknown.path }),
    };
  }
  const checked = parse_config_text(JSON.stringify(root), path);
  if (!checked.ok) return checked;
  await write_config_file(path, root, options);
  return { ok: true, warnings: checked.warnings };
}
