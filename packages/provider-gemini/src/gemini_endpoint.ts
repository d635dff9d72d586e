import { endpoint_url } from '@lich/providers';

/** The base URL used when the config names none. */
export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

/**
 * The URL of one call for `model`: `<base>/models/<model>:streamGenerateContent?alt=sse` when it
 * streams, `<base>/models/<model>:generateContent` when not. A bare origin gets `/v1beta`; a model
 * given as `models/x` is not prefixed twice.
 *
 * Contract: pure; throws a `TypeError` for a base that is no URL at all (a config error).
 */
export function gemini_url(base_url: string | undefined, model: string, stream: boolean): string {
  const name = model.startsWith('models/') ? model : `models/${model}`;
  const method = stream ? 'streamGenerateContent' : 'generateContent';
  const url = new URL(
    endpoint_url(base_url ?? GEMINI_DEFAULT_BASE_URL, (path) => {
      return `${path === '' ? '/v1beta' : path}/${name}:${method}`;
    }),
  );
  if (stream) url.searchParams.set('alt', 'sse');
  return url.toString();
}
