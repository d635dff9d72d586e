import type { CheckpointStore, FileChange } from '@lich/checkpoints';
import type { PromptMark, SessionState } from '@lich/session';
import type { RewindPoint } from './rewind_types.js';

/** True when checkpoint `id` is still in `store` (not pruned). */
export function is_kept(store: CheckpointStore, id: string | undefined): id is string {
  if (id === undefined) return false;
  try {
    store.get(id);
    return true;
  } catch {
    return false;
  }
}

/**
 * The checkpoint a rewind to prompt `index` (0-based) restores: the one taken before that prompt's
 * first change, else before the first change of a later prompt (a prompt that changed nothing
 * leaves the files as the next change found them). Undefined when no prompt from there on
 * changed anything, or its checkpoint was pruned.
 */
export function files_target(
  store: CheckpointStore,
  prompts: readonly PromptMark[],
  index: number,
): string | undefined {
  for (let i = index; i < prompts.length; i++) {
    const before = prompts[i]?.before;
    if (before !== undefined) return is_kept(store, before) ? before : undefined;
  }
  return undefined;
}

function changes_of(store: CheckpointStore, prompt: PromptMark): FileChange[] {
  if (prompt.before === undefined || prompt.after === undefined) return [];
  try {
    return store.changes(prompt.before, prompt.after, { lines: true });
  } catch {
    return [];
  }
}

/**
 * The prompts of a session as `/rewind` lists them, oldest first: each with the files it changed
 * (lines added and removed) and whether its files and its conversation can be rewound. `store` is
 * null when checkpoints are off (then no prompt's files can be).
 */
export function rewind_points(
  state: Readonly<SessionState>,
  store: CheckpointStore | null,
): RewindPoint[] {
  const { prompts } = state;
  // from the newest prompt back: is there a kept checkpoint from here on?
  const files = new Array<boolean>(prompts.length).fill(false);
  let later = false;
  for (let i = prompts.length - 1; i >= 0; i--) {
    const before = prompts[i]!.before;
    if (store !== null && before !== undefined) later = is_kept(store, before);
    files[i] = later;
  }
  return prompts.map((prompt, i) => {
    const changes = store === null ? [] : changes_of(store, prompt);
    return {
      prompt: i + 1,
      run: prompt.run,
      input: prompt.input,
      at: prompt.at,
      files: files[i]!,
      conversation: prompt.conversation,
      changes,
      added_lines: changes.reduce((sum, change) => sum + (change.added_lines ?? 0), 0),
      removed_lines: changes.reduce((sum, change) => sum + (change.removed_lines ?? 0), 0),
    };
  });
}
