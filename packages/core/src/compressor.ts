/**
 * History compression: when the estimate nears the context window, the middle of the history is
 * replaced by a summary written by the same ChatFn, so it benefits from the same failover chain.
 */
import { content_text } from './content.js';
import { race_abort } from './race_abort.js';
import type { ChatFn, Message, Usage, UserMessage } from './types.js';
import { truncate_text } from './util.js';

/** The `error` of a compression that had nothing to do: the history is all head and tail. */
export const NOTHING_TO_COMPRESS = 'nothing to compress: the history is all head and tail';

/** The fraction of the context window at which compression starts, unless told otherwise. */
export const DEFAULT_COMPRESS_THRESHOLD = 0.75;

/** How many of the newest messages compression keeps, unless told otherwise. */
export const DEFAULT_KEEP_RECENT = 8;

/** How the summary message begins, so readers can recognise it. */
export const SUMMARY_PREFIX = 'Summary of earlier conversation:\n';

const SUMMARY_SYSTEM_PROMPT =
  'You compress the history of a conversation between a user and an AI agent that uses tools. ' +
  'Your summary replaces the original messages, so the agent must be able to continue from it alone.';

const SUMMARY_INSTRUCTION =
  "Summarise the conversation below. Keep the user's goals and constraints, decisions made, " +
  'files and commands touched with their outcomes, errors met and how they were resolved, and ' +
  'what remains to be done. Leave out pleasantries and tool output that no longer matters. ' +
  'Write plain text without a preamble.';

/**
 * Whether a history of `estimated_tokens` should be compressed: true when it exceeds `threshold`
 * (a fraction of the window, default 0.75) of `context_window`.
 *
 * Contract: never throws; false when `context_window` is not a positive finite number.
 */
export function should_compress(
  estimated_tokens: number,
  context_window: number,
  threshold: number = DEFAULT_COMPRESS_THRESHOLD,
): boolean {
  if (!Number.isFinite(context_window) || context_window <= 0) return false;
  return estimated_tokens > context_window * threshold;
}

/** Which messages compression would replace: `[from, to)` of the history. */
export interface CompressionPlan {
  from: number;
  to: number;
}

/**
 * Picks the middle of `messages` to summarise: after the system prompt and the first user
 * message, before the newest `keep_recent` messages. The tail is widened backwards so it never
 * begins with a tool result, which keeps an assistant tool call together with its results.
 *
 * Contract: never throws; `null` when fewer than two messages would be replaced.
 */
export function plan_compression(
  messages: readonly Message[],
  keep_recent: number = DEFAULT_KEEP_RECENT,
): CompressionPlan | null {
  let from = messages[0]?.role === 'system' ? 1 : 0;
  const first_user = messages.findIndex(
    (message, index) => index >= from && message.role === 'user',
  );
  if (first_user !== -1) from = first_user + 1;
  while (messages[from]?.role === 'tool') from++;
  let to = Math.max(from, messages.length - keep_recent);
  while (to > from && messages[to]?.role === 'tool') to--;
  return to - from >= 2 ? { from, to } : null;
}

/** Options of `compress_messages`. */
export interface CompressOptions {
  /** How many of the newest messages to keep as they are (default 8, widened to whole tool turns). */
  keep_recent?: number;
  /** Aborts the summary call; the outcome is then `{ ok: false, error: 'aborted' }`. */
  signal?: AbortSignal;
  /** Upper bound of the transcript sent for summarising (default 200 000 characters). */
  max_transcript_chars?: number;
  /** Upper bound of each message within that transcript (default 4 000 characters). */
  max_message_chars?: number;
  /**
   * State that must outlive the summary (a task list): called with the whole history, its text is
   * appended to the summary message, so the model sees it again and a reader finds it there.
   * A carry that throws or returns nothing adds nothing.
   */
  carry?: (messages: readonly Message[]) => string | undefined;
}

/** The outcome of `compress_messages`. On failure `messages` is the history as it was given. */
export type CompressResult =
  | {
      ok: true;
      messages: Message[];
      /** `[from, to)` of the original history was replaced by `summary_message`. */
      from: number;
      to: number;
      summary: string;
      summary_message: UserMessage;
      usage?: Usage;
    }
  | { ok: false; messages: readonly Message[]; error: string; usage?: Usage };

/**
 * Compresses a history: keeps the system prompt, the first user message and a recent tail, and
 * replaces the middle with one user message `Summary of earlier conversation: …` written by
 * `chat` (called with no tools). A session reader replays it as
 * `messages.splice(from, to - from, summary_message)`.
 *
 * Contract: never throws on valid options and never mutates `messages`. Expected failures are
 * data: nothing to compress, a rejecting `chat`, an empty summary or an abort each give
 * `{ ok: false, error, messages }` with the history untouched. A `chat` that ignores the abort
 * is not waited for. Throws a `RangeError` only for a `keep_recent` that is not a positive integer.
 */
export async function compress_messages(
  messages: readonly Message[],
  chat: ChatFn,
  options: CompressOptions = {},
): Promise<CompressResult> {
  const keep_recent = options.keep_recent ?? DEFAULT_KEEP_RECENT;
  if (!Number.isInteger(keep_recent) || keep_recent < 1) {
    throw new RangeError(
      `compress_messages: keep_recent must be a positive integer, got ${keep_recent}`,
    );
  }
  const plan = plan_compression(messages, keep_recent);
  if (plan === null) {
    return { ok: false, messages, error: NOTHING_TO_COMPRESS };
  }
  const { signal } = options;
  if (signal?.aborted) return { ok: false, messages, error: 'aborted' };
  const transcript = render_transcript(
    messages.slice(plan.from, plan.to),
    options.max_message_chars ?? 4_000,
    options.max_transcript_chars ?? 200_000,
  );
  const request: Message[] = [
    { role: 'system', content: SUMMARY_SYSTEM_PROMPT },
    {
      role: 'user',
      content: `${SUMMARY_INSTRUCTION}\n\n<conversation>\n${transcript}\n</conversation>`,
    },
  ];
  let usage: Usage | undefined;
  let summary: string;
  try {
    const outcome = await race_abort(Promise.resolve(chat(request, [], { signal })), signal);
    if (outcome.aborted) return { ok: false, messages, error: 'aborted' };
    usage = outcome.value?.usage;
    const content: unknown = outcome.value?.message?.content;
    summary = typeof content === 'string' ? content.trim() : '';
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    return { ok: false, messages, error: `the summary call failed: ${text}` };
  }
  if (summary === '') {
    return { ok: false, messages, error: 'the summary call returned no text', usage };
  }
  let carried: string | undefined;
  try {
    carried = options.carry?.(messages);
  } catch {
    carried = undefined;
  }
  const content = carried
    ? `${SUMMARY_PREFIX}${summary}\n\n${carried}`
    : `${SUMMARY_PREFIX}${summary}`;
  const summary_message: UserMessage = { role: 'user', content };
  const compressed = [...messages.slice(0, plan.from), summary_message, ...messages.slice(plan.to)];
  return { ok: true, messages: compressed, ...plan, summary, summary_message, usage };
}

function render_transcript(
  messages: readonly Message[],
  max_message_chars: number,
  max_transcript_chars: number,
): string {
  const blocks = messages.map((message) => truncate_text(render(message), max_message_chars));
  return truncate_text(blocks.join('\n\n'), max_transcript_chars);
}

function render(message: Message): string {
  switch (message.role) {
    case 'system':
    case 'user':
      return `[${message.role}]\n${content_text(message.content)}`;
    case 'assistant': {
      const calls = (message.tool_calls ?? []).map(
        (call) => `\n[tool call ${call.name}] ${call.arguments}`,
      );
      return `[assistant]\n${message.content}${calls.join('')}`;
    }
    case 'tool':
      return `[tool result ${message.name ?? message.tool_call_id}${message.is_error ? ', error' : ''}]\n${content_text(message.content)}`;
  }
}
