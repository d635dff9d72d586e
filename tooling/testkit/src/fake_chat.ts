import type {
  ChatFn,
  ChatOptions,
  ChatResult,
  FinishReason,
  Message,
  ToolCall,
  ToolDefinition,
  Usage,
} from '@lich/core';
import { split_text } from './split.js';

/** A scripted reply in short form; `fake_chat` turns it into a `ChatResult`. */
export interface FakeChatReply {
  text?: string;
  reasoning?: string;
  tool_calls?: Array<{ id?: string; name: string; arguments: string | Record<string, unknown> }>;
  usage?: Usage;
  finish_reason?: FinishReason;
  provider?: string;
  model?: string;
}

/** A call that streams `partial_text` through `on_delta`, then rejects with `error`. */
export interface FakeChatBreak {
  partial_text: string;
  error: unknown;
}

/** What one call answers: its result, a short reply, plain text, an error to reject with, a
 * stream that breaks after some text, or a function computing the result from the call. */
export type FakeChatStep =
  | ChatResult
  | FakeChatReply
  | string
  | Error
  | FakeChatBreak
  | ((
      call: FakeChatCall,
    ) => ChatResult | FakeChatReply | string | Promise<ChatResult | FakeChatReply | string>);

/** One call a fake ChatFn received. `messages` and `tools` are deep copies taken at call time. */
export interface FakeChatCall {
  index: number;
  messages: Message[];
  tools: ToolDefinition[];
  max_tokens: number | undefined;
  /** Whether the caller passed `on_delta`. */
  streamed: boolean;
  signal: AbortSignal | undefined;
}

/** A `ChatFn` answering from a queue, with what it was called with. */
export interface FakeChat extends ChatFn {
  readonly calls: readonly FakeChatCall[];
  /** How many queued steps are left. */
  readonly pending: number;
  /** Appends steps to the queue. */
  push(...steps: FakeChatStep[]): void;
}

export interface FakeChatOptions {
  /** Streamed pieces are at most this many characters (default 4). */
  delta_chars?: number;
  /** Wait this long before answering each call (abortable). */
  delay_ms?: number;
  provider?: string;
  model?: string;
}

function is_chat_result(value: unknown): value is ChatResult {
  return typeof value === 'object' && value !== null && 'message' in value;
}

function is_break(value: unknown): value is FakeChatBreak {
  return typeof value === 'object' && value !== null && 'partial_text' in value && 'error' in value;
}

function abort_error(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abort_error(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', on_abort);
      resolve();
    }, ms);
    const on_abort = () => {
      clearTimeout(timer);
      reject(abort_error(signal as AbortSignal));
    };
    signal?.addEventListener('abort', on_abort, { once: true });
  });
}

/** Turns a short reply into a `ChatResult`; tool calls without an id get `call_<call>_<n>`. */
export function to_chat_result(
  reply: FakeChatReply | string,
  call_index = 0,
  defaults: { provider?: string; model?: string } = {},
): ChatResult {
  const short: FakeChatReply = typeof reply === 'string' ? { text: reply } : reply;
  const tool_calls: ToolCall[] | undefined = short.tool_calls?.map((call, index) => ({
    id: call.id ?? `call_${call_index}_${index}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  const result: ChatResult = {
    message: { role: 'assistant', content: short.text ?? '' },
    finish_reason: short.finish_reason ?? (tool_calls?.length ? 'tool_calls' : 'stop'),
  };
  if (tool_calls?.length) result.message.tool_calls = tool_calls;
  if (short.reasoning !== undefined) result.message.reasoning = short.reasoning;
  if (short.usage) result.usage = short.usage;
  const provider = short.provider ?? defaults.provider;
  const model = short.model ?? defaults.model;
  if (provider !== undefined) result.provider = provider;
  if (model !== undefined) result.model = model;
  return result;
}

/**
 * A queued fake `ChatFn`. Each call takes the next step: a result (streamed through `on_delta`
 * when given, reasoning first, then text, in pieces), an `Error` to reject with, or a break.
 *
 * Contract: records every call (deep copies of messages and tools) before answering; rejects
 * with the signal's reason as soon as `options.signal` aborts (before or while waiting); an empty
 * queue rejects with an error saying the script ran out, so a test never hangs.
 */
export function fake_chat(steps: FakeChatStep[] = [], options: FakeChatOptions = {}): FakeChat {
  const queue = [...steps];
  const calls: FakeChatCall[] = [];
  const delta_chars = options.delta_chars ?? 4;

  const chat = async (
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    chat_options: ChatOptions = {},
  ): Promise<ChatResult> => {
    const call: FakeChatCall = {
      index: calls.length,
      messages: structuredClone([...messages]),
      tools: structuredClone([...tools]),
      max_tokens: chat_options.max_tokens,
      streamed: chat_options.on_delta !== undefined,
      signal: chat_options.signal,
    };
    calls.push(call);
    const signal = chat_options.signal;
    if (signal?.aborted) throw abort_error(signal);
    if (options.delay_ms !== undefined) await wait(options.delay_ms, signal);
    const step = queue.shift();
    if (step === undefined) {
      throw new Error(`fake_chat: the script ran out (call #${call.index + 1})`);
    }
    if (step instanceof Error) throw step;
    if (is_break(step)) {
      for (const piece of split_text(step.partial_text, delta_chars)) {
        chat_options.on_delta?.({ kind: 'text', text: piece });
      }
      throw step.error;
    }
    const answer = typeof step === 'function' ? await step(call) : step;
    if (signal?.aborted) throw abort_error(signal);
    const result = is_chat_result(answer)
      ? structuredClone(answer)
      : to_chat_result(answer, call.index, options);
    const on_delta = chat_options.on_delta;
    if (on_delta) {
      for (const piece of split_text(result.message.reasoning ?? '', delta_chars)) {
        on_delta({ kind: 'reasoning', text: piece });
      }
      for (const piece of split_text(result.message.content, delta_chars)) {
        on_delta({ kind: 'text', text: piece });
      }
    }
    return result;
  };

  return Object.defineProperties(chat, {
    calls: { get: () => calls, enumerable: true },
    pending: { get: () => queue.length, enumerable: true },
    push: { value: (...more: FakeChatStep[]) => queue.push(...more), enumerable: true },
  }) as FakeChat;
}
