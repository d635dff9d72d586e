/**
 * The loop's side of compression: its settings for a run, and one compression step with the
 * `compress_start` / `compress_end` events around it.
 */
import {
  compress_messages,
  DEFAULT_COMPRESS_THRESHOLD,
  DEFAULT_KEEP_RECENT,
} from './compressor.js';
import type { AgentEvent } from './events.js';
import type { LoopParams } from './loop.js';
import type { TokenCounter } from './tokens.js';
import type { ChatFn, Message } from './types.js';

/** A run's compression settings with defaults applied (internal to the loop). */
export interface CompressionSettings {
  context_window: number;
  threshold: number;
  keep_recent: number;
  /** The tokens the tool definitions take in each request (the run's one estimate of them). */
  definition_tokens: number;
  /** The running estimate of the history, so the per-turn check does not rescan it. */
  counter: TokenCounter;
  carry?: (messages: readonly Message[]) => string | undefined;
}

/**
 * The compression settings of a run, or null when compression is off (no `context_window`, or
 * `compression.enabled: false`). Never throws; params are checked by `run_conversation` first.
 */
export function compression_settings(
  params: LoopParams,
  gauge: { counter: TokenCounter; definition_tokens: number },
): CompressionSettings | null {
  const { context_window, compression = {} } = params;
  if (context_window === undefined || compression.enabled === false) return null;
  return {
    context_window,
    threshold: compression.threshold ?? DEFAULT_COMPRESS_THRESHOLD,
    keep_recent: compression.keep_recent ?? DEFAULT_KEEP_RECENT,
    definition_tokens: gauge.definition_tokens,
    counter: gauge.counter,
    ...(compression.carry === undefined ? {} : { carry: compression.carry }),
  };
}

/**
 * One compression step with `compress_start` / `compress_end` around it. Resolves with the new
 * history, or null when compression failed (the history is then unchanged and `compress_end`
 * says why). Never throws; an abort makes it fail with `error: 'aborted'`.
 */
export async function compress_history(
  messages: readonly Message[],
  chat: ChatFn,
  settings: CompressionSettings,
  signal: AbortSignal | undefined,
  emit: (event: AgentEvent) => void,
): Promise<Message[] | null> {
  const before_count = messages.length;
  const estimated_tokens = settings.counter.tokens + settings.definition_tokens;
  emit({ type: 'compress_start', messages_count: before_count, estimated_tokens });
  const done = await compress_messages(messages, chat, {
    keep_recent: settings.keep_recent,
    signal,
    ...(settings.carry === undefined ? {} : { carry: settings.carry }),
    // Half the window, in characters at four per token, so the summary request itself fits.
    max_transcript_chars: Math.max(1_000, Math.floor(settings.context_window * 2)),
  });
  if (!done.ok) {
    const { error, usage } = done;
    emit({
      type: 'compress_end',
      ok: false,
      before_count,
      after_count: before_count,
      error,
      usage,
    });
    return null;
  }
  const { from, to, summary, summary_message, usage } = done;
  const after_count = done.messages.length;
  emit({
    type: 'compress_end',
    ...{ ok: true, before_count, after_count, from, to, summary, summary_message, usage },
  });
  return done.messages;
}
