import { endpoint_url } from '@lich/providers';

/** The base URL used when the config names none. */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * The chat completions URL for a base URL, written with or without a trailing slash:
 * a bare origin (`http://localhost:8000`) gets `/v1`; a base that already ends in
 * `/chat/completions` is used as it is; any other path (`…/v1`, `https://openrouter.ai/api/v1`,
 * `…/openai/v1beta`) gets `/chat/completions`.
 *
 * A base without a scheme (`localhost:8000`) is taken as `http://`.
 *
 * Contract: pure; throws a `TypeError` for a string that is no URL at all (a config error).
 */
export function openai_chat_url(base_url: string = OPENAI_DEFAULT_BASE_URL): string {
  return endpoint_url(base_url, (path) => {
    if (path.endsWith('/chat/completions')) return path;
    return `${path === '' ? '/v1' : path}/chat/completions`;
  });
}
