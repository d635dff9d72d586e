import type { z } from 'zod';

const MARKER = Symbol.for('lich.config_error');

/**
 * A configuration that cannot be used: a file that is not JSON, a value of the wrong type, a work
 * dir that does not exist. `message` names the file (or flag, or variable), the key path and what
 * was expected. Use `ConfigError.is_instance` rather than `instanceof`.
 */
export class ConfigError extends Error {
  readonly [MARKER] = true;
  /** Where the bad value came from: a file path, `flag --x` or `env NAME`. */
  readonly source: string | undefined;
  /** The dotted key path, e.g. `providers.0.model`. */
  readonly key_path: string | undefined;

  constructor(message: string, init: { source?: string; key_path?: string; cause?: unknown } = {}) {
    super(message, { cause: init.cause });
    this.name = 'ConfigError';
    this.source = init.source;
    this.key_path = init.key_path;
  }

  /** True for any `ConfigError`, including one from another copy of this package. */
  static is_instance(value: unknown): value is ConfigError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }

  /** The error for the first issue of a failed zod parse of what `source` held. */
  static from_issues(source: string, issues: readonly z.core.$ZodIssue[]): ConfigError {
    const lines = issues.slice(0, 5).map((issue) => {
      const key_path = issue.path.map(String).join('.') || '(root)';
      const text = issue.message.replace(/^Invalid input: /, '');
      return `${key_path}: ${text}`;
    });
    const more = issues.length > 5 ? `\n  … and ${issues.length - 5} more` : '';
    const first = issues[0];
    return new ConfigError(`${source}: ${lines.join(`\n${source}: `)}${more}`, {
      source,
      key_path: first ? first.path.map(String).join('.') : undefined,
    });
  }
}
