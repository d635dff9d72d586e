/**
 * Test doubles for @lich/core's own tests (core depends on no other Lich package, so it does not
 * use @lich/testkit): a queued fake ChatFn, a recording ToolRunner, an event recorder.
 */
import { AgentEmitter, type AgentEvent } from '../src/events.js';
import type {
  ChatFn,
  ChatOptions,
  ChatResult,
  Message,
  ToolCall,
  ToolContext,
  ToolDefinition,
  ToolResult,
  ToolRunner,
} from '../src/types.js';

/** One queued answer: a result, an error to reject with, or a function of the call. */
export type ChatStep =
  | ChatResult
  | Error
  | ((
      messages: readonly Message[],
      tools: readonly ToolDefinition[],
      options: ChatOptions | undefined,
    ) => ChatResult | Promise<ChatResult>);

/** What the fake ChatFn was called with; `messages` and `tools` are copies taken at call time. */
export interface ChatCall {
  messages: Message[];
  tools: ToolDefinition[];
  options: ChatOptions | undefined;
}

/** A fake ChatFn that answers from a queue and records every call. Rejects when the queue is empty. */
export function queued_chat(
  steps: ChatStep[],
): ChatFn & { calls: ChatCall[]; remaining: () => number } {
  const queue = [...steps];
  const calls: ChatCall[] = [];
  const chat = async (
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    options?: ChatOptions,
  ): Promise<ChatResult> => {
    calls.push({ messages: structuredClone([...messages]), tools: [...tools], options });
    const step = queue.shift();
    if (step === undefined)
      throw new Error(`queued_chat: no answer queued for call ${calls.length}`);
    if (step instanceof Error) throw step;
    if (typeof step === 'function') return step(messages, tools, options);
    return structuredClone(step);
  };
  return Object.assign(chat, { calls, remaining: () => queue.length });
}

/** A final answer. */
export function reply(content: string, extra: Partial<ChatResult> = {}): ChatResult {
  return { message: { role: 'assistant', content }, finish_reason: 'stop', ...extra };
}

/** An answer that calls tools: each `[id, name, args]` (args as an object or raw text). */
export function call_tools(...calls: [id: string, name: string, args: unknown][]): ChatResult {
  const tool_calls: ToolCall[] = calls.map(([id, name, args]) => ({
    id,
    name,
    arguments: typeof args === 'string' ? args : JSON.stringify(args),
  }));
  return { message: { role: 'assistant', content: '', tool_calls }, finish_reason: 'tool_calls' };
}

/** A definition for each name, for `LoopDeps.definitions`. */
export function definitions(...names: string[]): ToolDefinition[] {
  return names.map((name) => ({
    name,
    description: `the ${name} tool`,
    parameters: { type: 'object', properties: {} },
  }));
}

/** What a recorded tool call got. */
export interface ToolRun {
  name: string;
  args: unknown;
  context: ToolContext | undefined;
}

type ToolHandler = (args: unknown, context: ToolContext | undefined) => unknown;

/**
 * A ToolRunner that records calls and runs `handlers[name]`; a string (or what the handler
 * returns as a string) becomes an ok result, a ToolResult is passed through. Unknown names give
 * `ok: false`, like the real executor.
 */
export function recording_runner(handlers: Record<string, ToolHandler> = {}): ToolRunner & {
  runs: ToolRun[];
} {
  const runs: ToolRun[] = [];
  return {
    runs,
    async execute(name, args, context) {
      runs.push({ name, args, context });
      const handler = handlers[name];
      if (handler === undefined) {
        return { ok: false, output: `unknown tool ${name}`, error: 'unknown tool', duration_ms: 0 };
      }
      const value = await handler(args, context);
      if (typeof value === 'string') return { ok: true, output: value, duration_ms: 0 };
      return value as ToolResult;
    },
  };
}

/** An emitter with a recorder attached. */
export function recorded_emitter(): {
  emitter: AgentEmitter;
  events: AgentEvent[];
  types: () => string[];
} {
  const emitter = new AgentEmitter();
  const events: AgentEvent[] = [];
  emitter.on((event) => events.push(event));
  return { emitter, events, types: () => events.map((event) => event.type) };
}

/** A promise that settles after the work already queued (I/O callbacks, timers due) has run. */
export function next_turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A promise with its resolve function outside. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** A promise that rejects with an AbortError when `signal` fires, as a well-behaved callee does. */
export function until_abort(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = () => reject(signal?.reason ?? new Error('aborted'));
    if (signal?.aborted) fail();
    signal?.addEventListener('abort', fail, { once: true });
  });
}

/**
 * Checks that a history is one a provider would accept: at most one system message, first; every
 * assistant tool call answered by exactly one tool message right after it; no stray tool message.
 * Returns the problems found (empty when valid).
 */
export function history_problems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  let open: Set<string> | null = null;
  messages.forEach((message, index) => {
    if (message.role === 'system' && index !== 0) problems.push(`system message at ${index}`);
    if (message.role === 'tool') {
      if (open === null || !open.has(message.tool_call_id)) {
        problems.push(`tool result ${message.tool_call_id} at ${index} answers no open call`);
      } else open.delete(message.tool_call_id);
      return;
    }
    if (open !== null && open.size > 0) {
      problems.push(`calls ${[...open].join(', ')} unanswered before ${index}`);
    }
    open =
      message.role === 'assistant' && message.tool_calls !== undefined
        ? new Set(message.tool_calls.map((call) => call.id))
        : null;
  });
  if (open !== null && (open as Set<string>).size > 0) {
    problems.push(`calls ${[...(open as Set<string>)].join(', ')} unanswered at the end`);
  }
  return problems;
}
