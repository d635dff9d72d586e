/**
 * JSON text for a `jsonb` column. PostgreSQL's `jsonb` refuses the character U+0000 (and its
 * `\u0000` escape), so a message or a record holding one would fail its insert, and a webhook
 * sender would see a 5xx and retry forever: each U+0000 in a string becomes U+FFFD instead.
 *
 * Contract: pure; `JSON.stringify` otherwise, throwing what it throws.
 */
export function pg_json(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'string' && item.includes('\u0000')
      ? item.replaceAll('\u0000', '\uFFFD')
      : item,
  );
}
