import { one_line } from '@lich/core';
import type { AnthropicErrorBody } from './anthropic_api.js';

/** A provider message longer than this is cut. */
const MESSAGE_CHARS = 300;

/** What an Anthropic error body says, in `ProviderError` terms. */
export interface AnthropicErrorInfo {
  provider_message?: string;
  /** The error type, e.g. `overloaded_error`, `rate_limit_error`, `invalid_request_error`. */
  code?: string;
  request_id?: string;
}

/** Error types worth another try when they arrive as an `error` event after a 200. */
const RETRYABLE_TYPES = new Set([
  'overloaded_error',
  'api_error',
  'rate_limit_error',
  'timeout_error',
]);

/**
 * Reads an error body `{ type: 'error', error: { type, message }, request_id }`, or whatever a
 * proxy sent instead (non-JSON text, e.g. an HTML page, becomes a short message).
 *
 * Contract: never throws; returns `{}` when nothing useful is there.
 */
export function read_anthropic_error(body: unknown): AnthropicErrorInfo {
  if (typeof body === 'string') {
    const text = body.trim();
    if (text === '') return {};
    try {
      return read_anthropic_error(JSON.parse(text) as unknown);
    } catch {
      return { provider_message: one_line(text, MESSAGE_CHARS) };
    }
  }
  if (typeof body !== 'object' || body === null) return {};
  const record = body as AnthropicErrorBody;
  const info: AnthropicErrorInfo = {};
  if (typeof record.error === 'string')
    info.provider_message = one_line(record.error, MESSAGE_CHARS);
  else if (typeof record.error === 'object' && record.error !== null) {
    if (typeof record.error.message === 'string' && record.error.message !== '') {
      info.provider_message = one_line(record.error.message, MESSAGE_CHARS);
    }
    if (typeof record.error.type === 'string' && record.error.type !== '') {
      info.code = record.error.type;
    }
  } else if (typeof record.message === 'string' && record.message !== '') {
    info.provider_message = one_line(record.message, MESSAGE_CHARS);
  }
  if (typeof record.request_id === 'string' && record.request_id !== '') {
    info.request_id = record.request_id;
  }
  return info;
}

/** Whether an error of this type, reported inside a 200 stream, may pass on another try. */
export function is_retryable_anthropic_type(type: string | undefined): boolean {
  return type !== undefined && RETRYABLE_TYPES.has(type);
}
