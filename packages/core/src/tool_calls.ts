/**
 * Runs the tool calls of one assistant turn and answers each with one tool message, in call order.
 */
import { with_images } from './content.js';
import type { AgentEvent } from './events.js';
import { type AbortLatch, abort_latch } from './race_abort.js';
import type { ToolCall, ToolContext, ToolMessage, ToolResult, ToolRunner } from './types.js';
import { safe_json_parse, truncate_text } from './util.js';

/** One turn's tool calls and what they run with. */
export interface ToolCallBatch {
  turn: number;
  calls: readonly ToolCall[];
  runner: ToolRunner;
  /** The names of the tools offered to the model; a call to any other name is refused. */
  offered: ReadonlySet<string>;
  /** Handed to every call, with `signal` and `tool_call_id` set. */
  context?: ToolContext;
  /** The run's abort signal: pending calls are answered as aborted once it fires. */
  signal?: AbortSignal;
  /** Run the calls at once (true) or one after another. */
  parallel: boolean;
  emit: (event: AgentEvent) => void;
  /** Receives each tool message, in call order. */
  append: (message: ToolMessage) => void;
}

/**
 * Runs every call of `batch`: arguments parsed as JSON, the tool run through the runner, and one
 * tool message per call handed to `append` in call order, each as soon as it and every earlier
 * call are done (`tool_call_start` before a call runs, `tool_call_end` once it is appended).
 *
 * Contract: never throws, and resolves only when every call has its message. Expected failures
 * become `ok: false` results the model can act on, with the tool not run: an unknown tool,
 * arguments that are not a JSON object. A runner that throws, rejects or resolves with no result
 * gives `ok: false` too. Once `signal` fires, calls still running or not yet started are answered
 * with an "aborted" result and not waited for.
 */
export async function run_tool_calls(batch: ToolCallBatch): Promise<void> {
  const { calls } = batch;
  const results: (ToolResult | undefined)[] = new Array(calls.length);
  let appended = 0;
  const settle = (index: number, result: ToolResult) => {
    results[index] = result;
    for (let next = results[appended]; next !== undefined; next = results[appended]) {
      const call = calls[appended] as ToolCall;
      const message = to_tool_message(call, next);
      batch.append(message);
      batch.emit({ type: 'tool_call_end', turn: batch.turn, call, result: next, message });
      appended++;
    }
  };
  const latch = abort_latch(batch.signal);
  try {
    if (batch.parallel) {
      await Promise.all(
        calls.map((call, index) =>
          run_one(call, batch, latch).then((result) => settle(index, result)),
        ),
      );
    } else {
      for (const [index, call] of calls.entries()) settle(index, await run_one(call, batch, latch));
    }
  } finally {
    latch.dispose();
  }
}

async function run_one(
  call: ToolCall,
  batch: ToolCallBatch,
  latch: AbortLatch,
): Promise<ToolResult> {
  const started = performance.now();
  const args = parse_arguments(call, batch.offered);
  batch.emit({
    type: 'tool_call_start',
    turn: batch.turn,
    call,
    args: args.ok ? args.value : undefined,
  });
  if (!args.ok) return failure(args.error, started);
  if (batch.signal?.aborted) return aborted(started);
  let running = false;
  const context: ToolContext = {
    ...batch.context,
    signal: batch.signal ?? batch.context?.signal,
    tool_call_id: call.id,
    on_running: () => {
      if (running) return;
      running = true;
      batch.emit({ type: 'tool_call_running', turn: batch.turn, call });
    },
  };
  try {
    const execution = Promise.resolve(batch.runner.execute(call.name, args.value, context));
    const outcome = await Promise.race([
      execution.then((value) => ({ aborted: false as const, value })),
      latch.promise,
    ]);
    if (outcome.aborted) return aborted(started);
    return check_result(outcome.value, call, started);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    return failure(`tool '${call.name}' failed: ${text}`, started);
  }
}

function parse_arguments(
  call: ToolCall,
  offered: ReadonlySet<string>,
): { ok: true; value: unknown } | { ok: false; error: string } {
  if (!offered.has(call.name)) {
    const names = truncate_text([...offered].join(', '), 1_000);
    return {
      ok: false,
      error: `unknown tool '${call.name}'. Available tools: ${names === '' ? '(none)' : names}.`,
    };
  }
  // Models often send an empty string for a tool without parameters.
  if (call.arguments.trim() === '') return { ok: true, value: {} };
  const parsed = safe_json_parse(call.arguments);
  if (!parsed.ok) {
    return {
      ok: false,
      error: `the arguments for '${call.name}' are not valid JSON (${parsed.error}). The tool was not run; call it again with one JSON object.`,
    };
  }
  const { value } = parsed;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      error: `the arguments for '${call.name}' must be a JSON object, got ${truncate_text(call.arguments, 200)}. The tool was not run.`,
    };
  }
  return parsed;
}

function check_result(value: unknown, call: ToolCall, started: number): ToolResult {
  const result = value as Partial<ToolResult> | null | undefined;
  if (typeof result !== 'object' || result === null || typeof result.ok !== 'boolean') {
    return failure(`the tool runner returned no result for '${call.name}'`, started);
  }
  if (typeof result.output === 'string' && typeof result.duration_ms === 'number') {
    return result as ToolResult;
  }
  return {
    ...result,
    ok: result.ok,
    output: typeof result.output === 'string' ? result.output : '',
    duration_ms: elapsed(started),
  };
}

function to_tool_message(call: ToolCall, result: ToolResult): ToolMessage {
  if (result.ok) {
    const content = with_images(result.output, result.images ?? []);
    return { role: 'tool', tool_call_id: call.id, name: call.name, content };
  }
  const content =
    result.output !== '' ? result.output : `Error: ${result.error ?? 'the tool failed'}`;
  return { role: 'tool', tool_call_id: call.id, name: call.name, content, is_error: true };
}

function failure(error: string, started: number): ToolResult {
  return { ok: false, output: `Error: ${error}`, error, duration_ms: elapsed(started) };
}

function aborted(started: number): ToolResult {
  return {
    ok: false,
    output: 'Error: aborted: the run was stopped before this tool call finished.',
    error: 'aborted',
    duration_ms: elapsed(started),
  };
}

function elapsed(started: number): number {
  return performance.now() - started;
}
