import type { ChatFn } from '@lich/core';
import { DEFAULT_API_KEY_ENVS, type ProviderEntry } from './config/config_schema.js';

/** Values shorter than this are not scrubbed: they would match ordinary words. */
const MIN_SECRET_LENGTH = 6;
const REDACTED = '[redacted]';

/**
 * The secrets a provider chain is configured with: the value of each entry's key variable
 * (`api_key_env`, or the kind's default such as `OPENAI_API_KEY`) and of each of its headers
 * (and the part after `Bearer `), longest first so a value holding another is replaced whole.
 *
 * Contract: pure; never throws.
 */
export function configured_secrets(
  providers: readonly Readonly<ProviderEntry>[],
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const found = new Set<string>();
  for (const entry of providers) {
    const key_env = entry.api_key_env ?? DEFAULT_API_KEY_ENVS[entry.kind];
    const key = key_env === undefined ? undefined : env[key_env];
    if (key !== undefined) found.add(key.trim());
    for (const value of Object.values(entry.headers ?? {})) {
      if (typeof value !== 'string') continue;
      found.add(value.trim());
      const bearer = /^(?:Bearer|Basic|Token)\s+(.+)$/i.exec(value.trim());
      if (bearer?.[1] !== undefined) found.add(bearer[1].trim());
    }
  }
  return [...found]
    .filter((value) => value.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
}

/** `text` with every secret replaced by `[redacted]`. Pure. */
export function scrub_text(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

const TEXT_FIELDS = ['message', 'stack', 'provider_message', 'body', 'detail'] as const;

/**
 * Scrubs an error in place (its message, stack, the provider's own message, and the same of its
 * `cause` and of the errors a chain error lists), so whoever prints or records it later sees no
 * secret, and returns it. Anything that is not an object is returned as it is (a string is
 * scrubbed).
 *
 * Contract: never throws; a field that cannot be written is left.
 */
export function scrub_error<T>(error: T, secrets: readonly string[], depth = 0): T {
  if (secrets.length === 0 || depth > 4) return error;
  if (typeof error === 'string') return scrub_text(error, secrets) as T;
  if (error === null || typeof error !== 'object') return error;
  const record = error as Record<string, unknown>;
  for (const field of TEXT_FIELDS) {
    const value = record[field];
    if (typeof value !== 'string') continue;
    const clean = scrub_text(value, secrets);
    if (clean === value) continue;
    try {
      Object.defineProperty(record, field, { value: clean, writable: true, configurable: true });
    } catch {
      // frozen: left as it is
    }
  }
  if (record.cause !== undefined) scrub_error(record.cause, secrets, depth + 1);
  for (const list of [record.errors, record.failures]) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      scrub_error(item, secrets, depth + 1);
      if (item !== null && typeof item === 'object') {
        scrub_error((item as { error?: unknown }).error, secrets, depth + 1);
      }
    }
  }
  return error;
}

/**
 * `chat` whose failures carry no configured secret (a provider's 401 may quote the key back):
 * every error it rejects with is scrubbed in place first, so the CLI's message, the session's
 * `run_end` record and a host's `error` event all get the scrubbed text.
 */
export function scrubbing_chat(chat: ChatFn, secrets: readonly string[]): ChatFn {
  if (secrets.length === 0) return chat;
  return (messages, tools, options) =>
    chat(messages, tools, options).catch((error: unknown) => {
      throw scrub_error(error, secrets);
    });
}
