/**
 * The loop's own overhead per turn: 2,000 turns through `run_conversation` with a zero-latency fake
 * ChatFn (one tool call a turn to a no-op runner), from 10 and from 1,000 messages of seeded
 * history, alternated over several rounds. The 10-message run is the baseline of the 1,000-message
 * one: the cost of a turn must not grow with the history. A hand-written bare loop doing the same
 * calls shows what `run_conversation` adds on top of the fakes themselves.
 */
import {
  AgentEmitter,
  type ChatFn,
  type ChatResult,
  type Message,
  run_conversation,
  type ToolDefinition,
  type ToolRunner,
} from '@lich/core';
import { alternate } from './stats.js';
import type { BenchRow } from './types.js';

const TURNS = 2_000;
const ROUNDS = 15;
const TARGET_MS = 0.2;
const TARGET_RATIO = 1.5;

const DEFINITIONS: ToolDefinition[] = [
  { name: 'noop', description: 'does nothing', parameters: { type: 'object', properties: {} } },
];

/** Answers every call with one tool call, and with a final answer when offered no tools. */
const fake_chat: ChatFn = async (_messages, tools) => {
  if (tools.length === 0) {
    return { message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' };
  }
  return {
    message: {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: `call_${Math.random()}`, name: 'noop', arguments: '{"n":1}' }],
    },
    finish_reason: 'tool_calls',
    usage: { input_tokens: 10, output_tokens: 5 },
  } satisfies ChatResult;
};

const noop_runner: ToolRunner = {
  execute: async () => ({ ok: true, output: 'ok', duration_ms: 0 }),
};

function history(count: number): Message[] {
  const messages: Message[] = [];
  for (let index = 0; index < count; index++) {
    const content = `message ${index} ${'lorem ipsum '.repeat(15)}`;
    messages.push(index % 2 === 0 ? { role: 'user', content } : { role: 'assistant', content });
  }
  return messages;
}

/** One run of TURNS turns through the real loop, with the options a real run uses. */
async function drive(seed: readonly Message[]): Promise<void> {
  const emitter = new AgentEmitter();
  let heard = 0;
  emitter.on(() => {
    heard++;
  });
  const controller = new AbortController();
  const outcome = await run_conversation(
    { chat: fake_chat, tools: noop_runner, definitions: DEFINITIONS, emitter },
    seed,
    {
      max_turns: TURNS,
      system_prompt: 'you are a benchmark',
      signal: controller.signal,
      // large enough never to compress, so the per-turn check runs without triggering
      context_window: 100_000_000,
    },
  );
  if (outcome.turns_used !== TURNS || outcome.stopped_reason !== 'max_turns' || heard === 0) {
    throw new Error(
      `the loop did not run ${TURNS} turns: ${outcome.turns_used} ${outcome.stopped_reason}`,
    );
  }
}

/** The same fake calls in the plainest loop possible: what the fakes cost on their own. */
async function bare(seed: readonly Message[]): Promise<void> {
  const messages = [...seed];
  for (let turn = 0; turn < TURNS; turn++) {
    const result = await fake_chat(messages, DEFINITIONS);
    messages.push(result.message);
    for (const call of result.message.tool_calls ?? []) {
      const output = await noop_runner.execute(call.name, JSON.parse(call.arguments));
      messages.push({ role: 'tool', tool_call_id: call.id, content: output.output });
    }
  }
}

/** Measures and returns the benchmark's rows. */
export async function run(): Promise<BenchRow[]> {
  const small = history(10);
  const large = history(1_000);
  for (let warmup = 0; warmup < 3; warmup++) {
    await drive(small);
    await drive(large);
    await bare(small);
  }
  const by_history = await alternate(
    ROUNDS,
    () => drive(large),
    () => drive(small),
  );
  const by_bare = await alternate(
    ROUNDS,
    () => drive(small),
    () => bare(small),
  );
  const small_ms = by_history.baseline_ms / TURNS;
  const large_ms = by_history.lich_ms / TURNS;
  return [
    {
      bench: 'loop',
      metric: 'per turn, 10 msgs history',
      lich: small_ms,
      unit: 'ms',
      target: `< ${TARGET_MS} ms`,
      pass: small_ms < TARGET_MS,
    },
    {
      bench: 'loop',
      metric: 'per turn, 1000 msgs history',
      lich: large_ms,
      baseline: small_ms,
      baseline_name: '10 msgs',
      unit: 'ms',
      ratio: by_history.ratio,
      target: `< ${TARGET_MS} ms, ratio < ${TARGET_RATIO}`,
      pass: large_ms < TARGET_MS && by_history.ratio < TARGET_RATIO,
    },
    {
      bench: 'loop',
      metric: 'per turn vs a bare loop, 10 msgs',
      lich: by_bare.lich_ms / TURNS,
      baseline: by_bare.baseline_ms / TURNS,
      baseline_name: 'bare loop',
      unit: 'ms',
      ratio: by_bare.ratio,
    },
  ];
}
