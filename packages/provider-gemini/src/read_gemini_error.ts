import { one_line } from '@lich/core';
import type { ErrorBodyInfo } from '@lich/providers';
import type { GeminiErrorDetail } from './gemini_api.js';

/** A protobuf duration in JSON (`"37s"`, `"0.5s"`) in milliseconds; undefined when it is not one. */
function duration_ms(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return match === null ? undefined : Math.ceil(Number(match[1]) * 1000);
}

/**
 * Reads a Gemini error body, `{ error: { code, message, status, details } }`: the message, and as
 * code the `status` (`RESOURCE_EXHAUSTED`, `INVALID_ARGUMENT`…), or the reason of its details
 * when it names one (`API_KEY_INVALID`); the wait a `RetryInfo` detail asks for (a quota's 429
 * says it there, not in a header). Never throws; `undefined` when the body is not one.
 */
export function read_gemini_error(body: unknown): ErrorBodyInfo | undefined {
  const detail = (
    typeof body === 'object' && body !== null ? Reflect.get(body, 'error') : undefined
  ) as GeminiErrorDetail | undefined;
  if (typeof detail !== 'object' || detail === null) return undefined;
  const reason = Array.isArray(detail.details)
    ? detail.details.find((entry) => typeof entry?.reason === 'string')?.reason
    : undefined;
  const info: ErrorBodyInfo = {};
  if (typeof detail.message === 'string' && detail.message !== '') {
    info.message = one_line(detail.message, 300);
  }
  const code = reason ?? detail.status;
  if (typeof code === 'string' && code !== '') info.code = code;
  const retry = Array.isArray(detail.details)
    ? detail.details.find((entry) => entry?.['@type']?.endsWith('google.rpc.RetryInfo') === true)
    : undefined;
  const wait = duration_ms(retry?.retryDelay);
  if (wait !== undefined) info.retry_after_ms = wait;
  return info;
}
