/**
 * `${VAR}` references in config values, as `.mcp.json` files write them: secrets stay in the
 * environment, and the config names which of them a server gets.
 */

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** The outcome of `expand_env`: the expanded text and the variables that were not set. */
export interface Expansion {
  value: string;
  missing: string[];
}

/**
 * Replaces `${VAR}` with `source.VAR` and `${VAR:-fallback}` with the fallback when VAR is unset
 * or empty. An unset VAR without a fallback becomes the empty string and is listed in `missing`.
 *
 * Contract: never throws; text without references is returned unchanged.
 */
export function expand_env(text: string, source: NodeJS.ProcessEnv = process.env): Expansion {
  const missing: string[] = [];
  const value = text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const found = source[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return '';
  });
  return { value, missing };
}

/** `expand_env` over every value of a record; `missing` gathers the unset variables of all. */
export function expand_env_record(
  record: Readonly<Record<string, string>> | undefined,
  source: NodeJS.ProcessEnv = process.env,
): { values: Record<string, string>; missing: string[] } {
  const values: Record<string, string> = {};
  const missing: string[] = [];
  for (const [key, text] of Object.entries(record ?? {})) {
    const expansion = expand_env(text, source);
    values[key] = expansion.value;
    missing.push(...expansion.missing);
  }
  return { values, missing };
}
