const SECRET_KEY = /(api[_-]?key|token|secret|password|passwd|authorization|cookie|credential)/i;

/** What replaces a secret in printed config. */
export const REDACTED = '[redacted]';

/**
 * A deep copy of `value` with the values of secret-looking keys (api keys, tokens, secrets,
 * passwords, Authorization and Cookie headers) replaced by `[redacted]`. `api_key_env` holds a
 * variable's name, not a key, and is kept. Strings that look like bearer tokens are redacted
 * wherever they are. Pure; never throws.
 */
export function redact_config(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => redact_config(item, key));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [child_key, child] of Object.entries(value)) {
      copy[child_key] = redact_config(child, child_key);
    }
    return copy;
  }
  if (typeof value === 'string') {
    if (key !== 'api_key_env' && SECRET_KEY.test(key) && value !== '') return REDACTED;
    if (/^(Bearer|Basic)\s+\S+/i.test(value)) return REDACTED;
    if (/^(sk|pk|xox[abp]|ghp|gho)[-_][A-Za-z0-9_-]{8,}$/.test(value)) return REDACTED;
  }
  return value;
}
