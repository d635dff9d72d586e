import { type ChatFn, type CompressResult, compress_messages, type Message } from '@lich/core';
import type { HookDispatcher } from './hooks/hook_dispatcher.js';
import { carry_todos } from './toolbox/todo_list.js';

/** What a compaction asked for (`/compact`) works with. */
export interface CompactOptions {
  hooks: HookDispatcher;
  /** The chat that writes the summary, asked for once the hooks ran (it may throw). */
  chat: () => ChatFn;
  /** Messages at the end kept as they are (`compression.keep_recent`). */
  keep_recent: number;
  signal?: AbortSignal;
}

/**
 * Compresses `history` now, as the loop does when it grows too long: the PreCompact hooks run
 * first (`trigger: 'manual'`), then the middle is replaced by a summary the model writes, the
 * task list carried into it. Never throws for a failed summary (`ok: false`).
 */
export async function compact_history(
  history: readonly Message[],
  options: CompactOptions,
): Promise<CompressResult> {
  const { hooks, signal } = options;
  if (await hooks.has('PreCompact')) {
    await hooks.run(
      'PreCompact',
      { trigger: 'manual', custom_instructions: '' },
      {
        session: { handle: null, session_id: 'compact' },
        match: ['manual'],
        ...(signal === undefined ? {} : { signal }),
      },
    );
  }
  return compress_messages(history, options.chat(), {
    keep_recent: options.keep_recent,
    carry: carry_todos,
    ...(signal === undefined ? {} : { signal }),
  });
}
