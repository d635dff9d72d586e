/**
 * Keeps secrets out of error text: the values a server's config hands it (env, headers) and
 * anything shaped like a token, wherever a server's stderr or an error message repeats them.
 */

/** What replaces a secret. */
export const REDACTED = '[redacted]';

/** Values shorter than this are not treated as secrets (they would redact ordinary words). */
const MIN_SECRET_LENGTH = 4;

const TOKEN_PATTERNS: readonly RegExp[] = [
  // well-known key prefixes: OpenAI/Anthropic, GitHub, GitLab, Slack, AWS, Google, Stripe
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{12,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{16,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g,
  // JSON Web Tokens
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/** `Bearer x`, `token=x`, `"api_key": "x"`, `password: x`: the value after a secret-ish key. */
const KEYED_SECRET =
  /\b(bearer|basic|token|access[_-]?token|api[_-]?key|apikey|secret|client[_-]?secret|password|passwd|authorization)("?\s*[:=]\s*"?|\s+)((?:bearer\s+|basic\s+|token\s+)?)([^\s"',;&]{4,})/gi;

/** `scheme://user:password@host` */
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/)([^\s/:@]+):([^\s/@]+)@/gi;

/**
 * Returns `text` with every value of `secrets` (4 characters or more) and every token-like string
 * replaced by `[redacted]`.
 *
 * Contract: never throws; longer secrets are replaced first, so one that contains another is
 * still fully hidden.
 */
export function redact_secrets(text: string, secrets: Iterable<string> = []): string {
  let result = text;
  const values = [...new Set(secrets)]
    .filter((value) => value.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const value of values) result = result.split(value).join(REDACTED);
  for (const pattern of TOKEN_PATTERNS) result = result.replace(pattern, REDACTED);
  result = result.replace(
    KEYED_SECRET,
    (match, key: string, separator: string, scheme: string, value: string) =>
      value === REDACTED ? match : `${key}${separator}${scheme}${REDACTED}`,
  );
  return result.replace(URL_CREDENTIALS, `$1$2:${REDACTED}@`);
}
