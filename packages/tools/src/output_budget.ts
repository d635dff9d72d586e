import type { ToolRunContext } from '@lich/core';
import { DEFAULT_MAX_OUTPUT_CHARS } from './executor.js';

/**
 * How many characters a tool that cuts its own output (whole lines, then a note saying how to get
 * the rest) aims for: a little under the executor's limit, so the executor never clamps it and the
 * note survives, and never under 1 000. Never throws.
 */
export function output_budget(context: ToolRunContext): number {
  return Math.max(1_000, (context.max_output_chars ?? DEFAULT_MAX_OUTPUT_CHARS) - 500);
}
