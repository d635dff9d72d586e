import { one_line } from '@lich/core';
import type { HeaderLookup } from './response_headers.js';

/** What a provider's error body says: its message and its error type or code. */
export interface ErrorBodyInfo {
  message?: string;
  code?: string;
  /** When the body says how long to wait (Gemini's `RetryInfo`); a header says it first. */
  retry_after_ms?: number;
}

/**
 * Reads a provider's error body. `body` is the parsed JSON (or `undefined` when the body was not
 * JSON), `text` the raw body and `headers` the answer's headers (Bedrock names the error type in
 * one). Must not throw.
 */
export type ErrorExtractor = (
  body: unknown,
  text: string,
  headers: HeaderLookup,
) => ErrorBodyInfo | undefined;

function string_field(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const field = Reflect.get(value, key);
  if (typeof field === 'string' && field !== '') return field;
  if (typeof field === 'number') return String(field);
  return undefined;
}

/** The `<title>` of an HTML page, or its text without tags. */
export function html_summary(text: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
  if (title && title.trim() !== '') return one_line(title);
  return one_line(text.replace(/<[^>]*>/g, ' '));
}

/**
 * Understands the common error bodies: OpenAI `{ error: { message, type, code } }` (code
 * preferred over type), Anthropic `{ type: 'error', error: { type, message } }`, Ollama
 * `{ error: '…' }`, a bare `{ message }` or `{ detail }`, an HTML page (its title) and plain text
 * (an excerpt). Must not throw.
 */
export const default_extract_error = (body: unknown, text: string): ErrorBodyInfo | undefined => {
  if (typeof body === 'object' && body !== null) {
    const error: unknown = Reflect.get(body, 'error');
    if (typeof error === 'string' && error !== '') return { message: error };
    if (typeof error === 'object' && error !== null) {
      const message = string_field(error, 'message');
      const code = string_field(error, 'code') ?? string_field(error, 'type');
      return { message, code };
    }
    const message = string_field(body, 'message') ?? string_field(body, 'detail');
    if (message !== undefined) return { message, code: string_field(body, 'code') };
  }
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (/^<(!doctype|html)/i.test(trimmed)) return { message: html_summary(trimmed) };
  return { message: one_line(trimmed) };
};
