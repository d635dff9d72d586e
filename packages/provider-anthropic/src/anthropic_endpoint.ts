import { endpoint_url } from '@lich/providers';

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
  return endpoint_url(base_url, (path) => {
    if (path.endsWith('/messages')) return path;
    return `${path.endsWith('/v1') ? path : `${path}/v1`}/messages`;
  });
}
