import type { LoopOutcome, Message } from '@lich/core';
import type { HookDispatcher, HookSession } from './hook_dispatcher.js';

/** How many times Stop hooks may send the model back to work within one run. */
export const STOP_CONTINUATIONS_LIMIT = 3;

/** What the hooks before a prompt decided. */
export interface PromptHooksResult {
  /** Set when a `UserPromptSubmit` hook blocked the prompt: why. */
  blocked?: string;
  /** The prompt, with the context `SessionStart` and `UserPromptSubmit` hooks added after it. */
  input: string;
}

function with_context(input: string, event: string, context: readonly string[]): string {
  if (context.length === 0) return input;
  return `${input}\n\n<hook_context event="${event}">\n${context.join('\n\n')}\n</hook_context>`;
}

/**
 * Runs `SessionStart` (when `history` is empty: the conversation's first prompt) and
 * `UserPromptSubmit` hooks before a prompt. Their context is added to the prompt; the prompt
 * itself is never rewritten. Never rejects.
 */
export async function run_prompt_hooks(
  hooks: HookDispatcher,
  options: {
    input: string;
    history: readonly Message[];
    session: HookSession;
    signal?: AbortSignal;
  },
): Promise<PromptHooksResult> {
  const common = {
    session: options.session,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  let input = options.input;
  if (options.history.length === 0 && (await hooks.has('SessionStart'))) {
    const started = await hooks.run(
      'SessionStart',
      { source: 'startup' },
      {
        ...common,
        match: ['startup'],
      },
    );
    input = with_context(input, 'SessionStart', started.context);
  }
  if (await hooks.has('UserPromptSubmit')) {
    const submitted = await hooks.run('UserPromptSubmit', { prompt: options.input }, common);
    if (submitted.block !== undefined) return { blocked: submitted.block, input: options.input };
    input = with_context(input, 'UserPromptSubmit', submitted.context);
  }
  return { input };
}

/**
 * After a run ended with an answer, runs the `Stop` hooks; while one blocks (asks the model to go
 * on, with its reason), runs the conversation again with the reason as a user message, at most
 * `STOP_CONTINUATIONS_LIMIT` times. `stop_hook_active` tells the hook it already sent the model
 * back, as in Claude Code. Resolves with the last outcome, its `turns_used` summed. Rejects only
 * when `run_again` does.
 */
export async function continue_while_stop_hooks_block(
  hooks: HookDispatcher,
  first: LoopOutcome,
  options: {
    session: HookSession;
    max_turns: number;
    signal?: AbortSignal;
    run_again(seed: Message[], max_turns: number): Promise<LoopOutcome>;
  },
): Promise<LoopOutcome> {
  let outcome = first;
  let turns = first.turns_used;
  for (let round = 0; round < STOP_CONTINUATIONS_LIMIT; round++) {
    if (outcome.stopped_reason !== 'final' || options.signal?.aborted) break;
    if (!(await hooks.has('Stop'))) break;
    const stop = await hooks.run(
      'Stop',
      { stop_hook_active: round > 0, last_assistant_message: outcome.final ?? '' },
      {
        session: options.session,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
    );
    if (stop.block === undefined) break;
    const left = options.max_turns - turns;
    if (left < 1) break;
    const seed: Message[] = [
      ...outcome.messages,
      { role: 'user', content: `A Stop hook asks you to go on: ${stop.block}` },
    ];
    outcome = await options.run_again(seed, left);
    turns += outcome.turns_used;
  }
  return { ...outcome, turns_used: turns };
}
