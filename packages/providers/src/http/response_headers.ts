/** What the header readers need of a `Headers`: `get`, case-insensitive, repeats joined by `, `. */
export type HeaderLookup = Pick<Headers, 'get'>;

/**
 * How long the provider asked us to wait, in milliseconds: `retry-after-ms` (OpenAI, Anthropic)
 * first, then `retry-after` as seconds or an HTTP date. `undefined` when absent or unreadable.
 */
export function parse_retry_after(
  headers: HeaderLookup,
  now: number = Date.now(),
): number | undefined {
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null) {
    const value = Number.parseFloat(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get('retry-after');
  if (after === null) return undefined;
  const trimmed = after.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number.parseFloat(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** `x-should-retry: true|false` (sent by OpenAI and Anthropic), or `undefined`. */
export function parse_should_retry(headers: HeaderLookup): boolean | undefined {
  const value = headers.get('x-should-retry')?.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

/** The provider's request id: `x-request-id` (OpenAI and most) or `request-id` (Anthropic). */
export function parse_request_id(headers: HeaderLookup): string | undefined {
  return headers.get('x-request-id') ?? headers.get('request-id') ?? undefined;
}
