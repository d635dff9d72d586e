/** Variable names that look like credentials: they never reach a child unless passed through. */
export const SECRET_NAME_PATTERN = /KEY|TOKEN|SECRET|PASSWORD/i;

/**
 * The environment a tool's child process gets: `env` (the parent's by default) without the
 * variables whose names contain KEY, TOKEN, SECRET or PASSWORD (any case), except the names listed
 * in `passthrough` (exact, case-sensitive).
 *
 * Contract: pure; never throws; never mutates `env`; unset (`undefined`) entries are dropped.
 */
export function child_env(
  options: { env?: NodeJS.ProcessEnv; passthrough?: readonly string[] } = {},
): NodeJS.ProcessEnv {
  const source = options.env ?? process.env;
  const passthrough = new Set(options.passthrough ?? []);
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (SECRET_NAME_PATTERN.test(name) && !passthrough.has(name)) continue;
    result[name] = value;
  }
  return result;
}

/**
 * Reads `env_passthrough` from a tool context (surfaces put it there from their config).
 *
 * Contract: never throws; anything but an array of strings counts as none; non-string entries
 * are ignored.
 */
export function env_passthrough_of(context: { [key: string]: unknown }): string[] {
  const value = context.env_passthrough;
  if (!Array.isArray(value)) return [];
  return value.filter((entry): entry is string => typeof entry === 'string');
}
