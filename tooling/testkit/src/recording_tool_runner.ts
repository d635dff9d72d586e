import type { ToolContext, ToolResult, ToolRunner } from '@lich/core';

/** What a handler of `recording_tool_runner` may return: a result, or just the output text. */
export type ToolHandlerResult = Omit<ToolResult, 'duration_ms'> & { duration_ms?: number };

/** Answers one tool call. A handler that throws makes `execute` reject. */
export type ToolHandler = (
  args: unknown,
  context: ToolContext | undefined,
) => string | ToolHandlerResult | Promise<string | ToolHandlerResult>;

/** One call a recording runner received, with what it answered. */
export interface RecordedToolCall {
  name: string;
  args: unknown;
  context: ToolContext | undefined;
  result?: ToolResult;
  error?: unknown;
  started_at: number;
  ended_at?: number;
}

/** A `ToolRunner` that records every call. */
export interface RecordingToolRunner extends ToolRunner {
  readonly calls: readonly RecordedToolCall[];
}

/**
 * A `ToolRunner` answering from handlers by tool name, recording every call in order of start.
 *
 * Contract: a handler's string becomes `{ ok: true, output }`; an unknown tool answers
 * `{ ok: false, error: 'unknown tool …' }`; a handler that throws makes `execute` reject (to test
 * how callers survive a runner that breaks its contract). `duration_ms` is measured.
 */
export function recording_tool_runner(
  handlers: Record<string, ToolHandler> = {},
): RecordingToolRunner {
  const calls: RecordedToolCall[] = [];
  return {
    calls,
    async execute(name: string, args: unknown, context?: ToolContext): Promise<ToolResult> {
      const call: RecordedToolCall = { name, args, context, started_at: performance.now() };
      calls.push(call);
      const handler = handlers[name];
      try {
        let result: ToolResult;
        if (handler === undefined) {
          const error = `unknown tool '${name}'`;
          result = { ok: false, output: error, error, duration_ms: 0 };
        } else {
          const answer = await handler(args, context);
          const duration_ms = performance.now() - call.started_at;
          result =
            typeof answer === 'string'
              ? { ok: true, output: answer, duration_ms }
              : { ...answer, duration_ms: answer.duration_ms ?? duration_ms };
        }
        call.result = result;
        return result;
      } catch (error) {
        call.error = error;
        throw error;
      } finally {
        call.ended_at = performance.now();
      }
    },
  };
}
