/** The base URL used when the config names none. */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/**
 * The Messages API URL for a base URL, written with or without a trailing slash or `/v1`:
 * `https://api.anthropic.com`, `…/v1` and `…/v1/messages` all lead to `…/v1/messages`; a proxy
 * path in front (`https://proxy/anthropic`) is kept.
 *
 * A base without a scheme (`localhost:8000`) is taken as `http://`.
 *
 * Contract: pure; throws a `TypeError` for a string that is no URL at all (a config error).
 */
export function anthropic_messages_url(base_url: string = ANTHROPIC_DEFAULT_BASE_URL): string {
  const trimmed = base_url.trim();
  // `localhost:8000` (no scheme) would parse as scheme `localhost:`; people mean http.
  const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`);
  let path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/messages')) {
    if (!path.endsWith('/v1')) path += '/v1';
    path += '/messages';
  }
  url.pathname = path;
  return url.toString();
}
