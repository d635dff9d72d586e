/**
 * Width helpers for plain (unstyled) text: cut to a number of terminal columns, and format
 * durations and token counts the way the screen shows them.
 */
import string_width from 'string-width';

/** `text` cut to `width` columns, with `…` when it was cut. Plain text only (no ANSI codes). */
/**
 * A command's description in the one style lists use: no closing period, a lower-case first
 * letter (unless the first word is an acronym), whoever wrote it (a plugin, a team's command).
 */
export function list_description(text: string): string {
  const trimmed = text.trim().replace(/\.$/, '');
  if (/^[A-Z][a-z]/.test(trimmed)) return `${trimmed[0]?.toLowerCase()}${trimmed.slice(1)}`;
  return trimmed;
}

export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  if (string_width(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const size = string_width(char);
    if (used + size > width - 1) break;
    out += char;
    used += size;
  }
  return `${out}…`;
}

/** The first line of `text` with its whitespace collapsed. */
export function first_line(text: string): string {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').trim().replace(/\s+/g, ' ');
}

/** `850ms`, `4.2s`, `2m05s`. */
export function format_duration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** `950`, `12.3k`, `1.2M`. */
export function format_tokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}
