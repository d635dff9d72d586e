import { one_line } from '@lich/core';
import type { OpenAiErrorBody, OpenAiErrorDetail } from './openai_api.js';

/** A provider message longer than this is cut. */
const MESSAGE_CHARS = 300;

/** What an OpenAI-compatible error body says, in `ProviderError` terms. */
export interface OpenAiErrorInfo {
  provider_message?: string;
  code?: string;
  /** A numeric `code` some servers put in the body (OpenRouter mid-stream errors). */
  status?: number;
}

/**
 * Reads an error body in any of the shapes OpenAI-compatible servers use:
 * `{ error: { message, type, code } }`, flat `{ object: 'error', message, type, code }` (vLLM),
 * or `{ error: 'text' }`. Non-JSON text (an HTML page from a proxy) becomes a short message.
 *
 * Contract: never throws; returns `{}` when nothing useful is there. `code` prefers the string
 * `code` (e.g. `insufficient_quota`) and falls back to `type` (e.g. `invalid_request_error`).
 */
export function read_openai_error(body: unknown): OpenAiErrorInfo {
  if (typeof body === 'string') {
    const text = body.trim();
    if (text === '') return {};
    try {
      return read_openai_error(JSON.parse(text) as unknown);
    } catch {
      return { provider_message: one_line(text, MESSAGE_CHARS) };
    }
  }
  if (typeof body !== 'object' || body === null) return {};
  const record = body as OpenAiErrorBody;
  if (typeof record.error === 'string')
    return { provider_message: one_line(record.error, MESSAGE_CHARS) };
  const detail: OpenAiErrorDetail =
    typeof record.error === 'object' && record.error !== null ? record.error : record;
  const info: OpenAiErrorInfo = {};
  if (typeof detail.message === 'string' && detail.message !== '') {
    info.provider_message = one_line(detail.message, MESSAGE_CHARS);
  }
  if (typeof detail.code === 'string' && detail.code !== '') info.code = detail.code;
  else if (typeof detail.type === 'string' && detail.type !== '') info.code = detail.type;
  if (typeof detail.code === 'number' && detail.code >= 400 && detail.code < 600) {
    info.status = detail.code;
  }
  return info;
}
