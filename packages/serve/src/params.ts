import { RpcError } from './rpc_error.js';

/** The longest string a parameter may hold (text of a prompt included), in characters. */
const MAX_STRING = 4 * 1024 * 1024;

/**
 * Reads the params of one request, refusing a missing or ill-typed one with `invalid_params`
 * naming it. Unknown keys are ignored (a newer client may send more).
 */
export class Params {
  readonly #method: string;
  readonly #values: Record<string, unknown>;

  constructor(method: string, params: unknown) {
    this.#method = method;
    this.#values = (params ?? {}) as Record<string, unknown>;
  }

  #fail(name: string, expected: string): never {
    throw new RpcError('invalid_params', `${this.#method}: ${name} must be ${expected}`);
  }

  /** A required non-empty string. */
  string(name: string): string {
    const value = this.#values[name];
    if (typeof value !== 'string' || value === '' || value.length > MAX_STRING) {
      this.#fail(name, 'a non-empty string');
    }
    return value;
  }

  /** A string that may be absent (empty strings allowed). */
  optional_string(name: string): string | undefined {
    const value = this.#values[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length > MAX_STRING) this.#fail(name, 'a string');
    return value;
  }

  /** A whole number ≥ 0 that may be absent. */
  optional_count(name: string): number | undefined {
    const value = this.#values[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      this.#fail(name, 'a whole number ≥ 0');
    }
    return value;
  }

  /** A boolean that may be absent. */
  optional_boolean(name: string): boolean | undefined {
    const value = this.#values[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') this.#fail(name, 'true or false');
    return value;
  }

  /** One of `choices` (required). */
  choice<T extends string>(name: string, choices: readonly T[]): T {
    const value = this.#values[name];
    if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
      this.#fail(name, `one of ${choices.join(', ')}`);
    }
    return value as T;
  }

  /** One of `choices`, or absent. */
  optional_choice<T extends string>(name: string, choices: readonly T[]): T | undefined {
    return this.#values[name] === undefined ? undefined : this.choice(name, choices);
  }

  /** The raw value (for `initialize`'s nested objects). */
  raw(name: string): unknown {
    return this.#values[name];
  }
}
