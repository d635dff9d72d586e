import type { CheckpointStore } from '@lich/checkpoints';
import type { SessionHandle } from '@lich/session';

/** A checkpoint a run took, as the session records it and a host announces it. */
export interface CheckpointMarkInfo {
  kind: 'before_prompt' | 'after_prompt';
  checkpoint_id: string;
  /** The run's number in its session. */
  run: number;
}

/** What a run's checkpoints are taken with. */
export interface RunCheckpointsOptions {
  store: CheckpointStore;
  /** The session the run records into: each checkpoint's id goes there. */
  handle: SessionHandle;
  /** The prompt, for the checkpoint's label. */
  label: string;
  /** Which tool calls change files. */
  writes: (tool: string) => boolean;
  on_warning: (text: string) => void;
  on_checkpoint?: (mark: CheckpointMarkInfo) => void;
}

function message_of(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The checkpoints of one run: one before its first change (the first call of a tool that writes),
 * taken once however many calls ask at the same time, and one when the run ends, if it changed
 * anything. Each id is recorded in the session as a `checkpoint` record.
 *
 * Contract: never rejects. A checkpoint that fails is a warning (what follows cannot be rewound)
 * and the tool call runs all the same.
 */
export class RunCheckpoints {
  readonly #options: RunCheckpointsOptions;
  #before: Promise<void> | undefined;
  #taken = false;

  constructor(options: RunCheckpointsOptions) {
    this.#options = options;
  }

  /** True when a call of `tool` counts as a change. */
  writes(tool: string): boolean {
    return this.#options.writes(tool);
  }

  /** Takes the checkpoint before the run's first change (once); resolves when it is written. */
  before_change(): Promise<void> {
    this.#before ??= this.#take('before_prompt');
    return this.#before;
  }

  /** Takes the checkpoint of the run's end, when a checkpoint was taken before a change. */
  async finish(): Promise<void> {
    if (this.#before === undefined) return;
    await this.#before;
    if (this.#taken) await this.#take('after_prompt');
  }

  async #take(kind: CheckpointMarkInfo['kind']): Promise<void> {
    const { store, handle } = this.#options;
    const run = handle.state.runs;
    try {
      const record = await store.create({
        kind,
        session_id: handle.id,
        label: this.#options.label,
      });
      if (kind === 'before_prompt') this.#taken = true;
      await handle.append({ type: 'checkpoint', run, kind, checkpoint_id: record.id });
      this.#options.on_checkpoint?.({ kind, checkpoint_id: record.id, run });
    } catch (error) {
      const what =
        kind === 'before_prompt' ? 'before this prompt changed files' : 'after this prompt';
      this.#options.on_warning(
        `the checkpoint ${what} failed (${message_of(error)}); /rewind cannot undo this prompt's changes`,
      );
    }
  }
}
