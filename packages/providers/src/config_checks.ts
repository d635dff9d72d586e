import type { ProviderConfig } from './provider.js';
import { ProviderError } from './provider_error.js';

/**
 * The checks a provider's settings reader makes on a `ProviderConfig`, each failing with a
 * `ProviderError` of kind `config` that names the provider, the model and what is wrong.
 */
export interface ConfigChecks {
  /** The `ProviderError` of kind `config` for `text` (e.g. `options.x must be …`), to throw. */
  fail(text: string): ProviderError;
  /**
   * `to_url(config.base_url)`, the provider's endpoint function; whatever it throws becomes
   * `fail("base_url is not a URL: '<base_url>'")`.
   */
  url(to_url: (base_url: string | undefined) => string): string;
  /**
   * Throws `fail('options.<name> must be true or false')` unless `value` is undefined or a boolean.
   */
  boolean(name: string, value: unknown): void;
  /**
   * Throws `fail('options.<name> must be an object')`, with `, <example>` added when given, unless
   * `value` is undefined or a plain object (not null, not an array).
   */
  object(name: string, value: unknown, example?: string): void;
}

/**
 * The checks for reading `config` in the factory of provider `provider` (its kind constant).
 *
 * Contract: does no I/O; building the checks never throws; each check throws only the
 * `ProviderError` described on `ConfigChecks`.
 */
export function config_checks(provider: string, config: ProviderConfig): ConfigChecks {
  const fail = (text: string) =>
    new ProviderError({ kind: 'config', provider, model: config.model, cause: new Error(text) });
  return {
    fail,
    url(to_url) {
      try {
        return to_url(config.base_url);
      } catch {
        throw fail(`base_url is not a URL: '${config.base_url}'`);
      }
    },
    boolean(name, value) {
      if (value !== undefined && typeof value !== 'boolean') {
        throw fail(`options.${name} must be true or false`);
      }
    },
    object(name, value, example) {
      if (
        value !== undefined &&
        (typeof value !== 'object' || value === null || Array.isArray(value))
      ) {
        throw fail(`options.${name} must be an object${example ? `, ${example}` : ''}`);
      }
    },
  };
}
