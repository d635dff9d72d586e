/** Whether tests that need a piece of the machine run, and if not, why. */
export interface Requirement {
  /** True when the tests must be skipped here. */
  skip: boolean;
  /** `''` when they run, else ` (skipped: <why>)`, to append to a `describe` title. */
  reason: string;
}

const told = new Set<string>();

/**
 * Decides whether tests that need `what` run. Where it is `available` they run. Where it is not,
 * they are skipped with a visible reason (one stderr line per `what`, and the `reason` suffix for
 * the suite's title) — unless the environment variable `env_var` is `1` (CI sets it), where a
 * missing piece is a failure: this throws, so the suite cannot pass without it.
 */
export function require_or_skip(
  what: string,
  available: boolean,
  env_var: string,
  why_missing = `${what} is not available here`,
): Requirement {
  if (available) return { skip: false, reason: '' };
  if (process.env[env_var] === '1') {
    throw new Error(`${env_var}=1 requires ${what}, but ${why_missing}`);
  }
  if (!told.has(what)) {
    told.add(what);
    process.stderr.write(
      `lich tests: skipping the tests that need ${what}: ${why_missing} (set ${env_var}=1 to make them required)\n`,
    );
  }
  return { skip: true, reason: ` (skipped: ${why_missing})` };
}
