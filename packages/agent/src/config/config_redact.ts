/** Config keys whose values are secrets wherever they appear. */
const SECRET_KEY = /(api[_-]?key|token|secret|password|passwd|authorization|cookie|credential)/i;

/**
 * Names of HTTP headers and environment variables that suggest a credential: `X-Auth`,
 * `Ocp-Apim-Subscription-Key`, `X-Api-Key`, `Proxy-Authorization`, `DB_PASS`, `SESSION_ID`…
 */
const SECRET_NAME =
  /(key|token|secret|passw|pwd|pass$|auth|cookie|credential|session|signature|private|bearer)/i;

/** Objects whose keys are header or variable names rather than config keys. */
const NAME_MAPS = new Set(['headers', 'env']);

/** `scheme://user:password@` in a URL: the password is what goes. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)([^\s@/]+)@/gi;

/** `?token=…`, `&api_key=…` in a URL's query. */
const QUERY_SECRET =
  /([?&](?:[^=&\s#]*(?:key|token|secret|password|passwd|auth|signature|sig)[^=&\s#]*)=)([^&\s#]+)/gi;

/** A value that only names a variable (`${GITHUB_TOKEN}`): it is no secret itself. */
const VARIABLE_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/** What replaces a secret in printed config. */
export const REDACTED = '[redacted]';

/** A string with the passwords of URLs in it (`postgres://u:PW@h`) and secret query values redacted. */
export function redact_urls(text: string): string {
  return text
    .replace(URL_USERINFO, (_match, head: string) => `${head}${REDACTED}@`)
    .replace(QUERY_SECRET, (_match, head: string) => `${head}${REDACTED}`);
}

function redact_value(value: unknown, key: string, in_name_map: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => redact_value(item, key, false));
  if (typeof value === 'object' && value !== null) {
    const names = NAME_MAPS.has(key);
    const copy: Record<string, unknown> = {};
    for (const [child_key, child] of Object.entries(value)) {
      copy[child_key] = redact_value(child, child_key, names);
    }
    return copy;
  }
  if (typeof value !== 'string' || value === '') return value;
  if (VARIABLE_REFERENCE.test(value)) return value;
  if (key !== 'api_key_env' && SECRET_KEY.test(key)) return REDACTED;
  if (in_name_map && SECRET_NAME.test(key)) return REDACTED;
  if (/^(Bearer|Basic|Token)\s+\S+/i.test(value)) return REDACTED;
  if (/^(sk|pk|xox[abp]|ghp|gho|ghs|github_pat|glpat)[-_][A-Za-z0-9_-]{8,}$/.test(value)) {
    return REDACTED;
  }
  return redact_urls(value);
}

/**
 * A deep copy of `value` for printing, with secrets replaced by `[redacted]`:
 * - values of secret-looking keys (api keys, tokens, secrets, passwords, Authorization, Cookie);
 *   `api_key_env` holds a variable's name, not a key, and is kept;
 * - in `headers` and `env` objects, values whose header or variable name suggests a credential
 *   (`X-Auth`, `Ocp-Apim-Subscription-Key`, `DB_PASSWORD`, `SESSION_SECRET`…);
 * - strings that look like bearer tokens or vendor keys, wherever they are;
 * - the password of any URL (`postgres://user:[redacted]@host`) and secret query values.
 * A value that only references a variable (`${GITHUB_TOKEN}`) is kept. Pure; never throws.
 */
export function redact_config(value: unknown, key = ''): unknown {
  return redact_value(value, key, false);
}
