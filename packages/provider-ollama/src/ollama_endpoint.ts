import { endpoint_url } from '@lich/providers';

/** The base URL used when the config names none: a local Ollama. */
export const OLLAMA_DEFAULT_BASE_URL = 'http://127.0.0.1:11434';

/**
 * The `/api/chat` URL for a base URL, written with or without a trailing slash. `…/api` and
 * `…/api/chat` are understood, and so is the OpenAI-compatible `…/v1` people often copy (it is
 * replaced, since this provider speaks the native API).
 *
 * A base without a scheme (`localhost:8000`) is taken as `http://`.
 *
 * Contract: pure; throws a `TypeError` for a string that is no URL at all (a config error).
 */
export function ollama_chat_url(base_url: string = OLLAMA_DEFAULT_BASE_URL): string {
  return endpoint_url(base_url, (path) => {
    if (path.endsWith('/api/chat')) return path;
    const base = path.replace(/\/v1$/, '');
    return `${base.endsWith('/api') ? base : `${base}/api`}/chat`;
  });
}
