/**
 * An agent's checkpoints: the store of its work dir, opened on first use, a `RunCheckpoints` for
 * each run that records into a session, and the daily prune after such a run.
 */
import type { CheckpointStore } from '@lich/checkpoints';
import type { SessionHandle } from '@lich/session';
import type { AgentConfig } from '../config/config_schema.js';
import { checkpoint_store_of, prune_options } from './checkpoint_store_of.js';
import { session_is_open } from './open_sessions.js';
import { RunCheckpoints, type RunCheckpointsOptions } from './run_checkpoints.js';
import { writing_tool_test } from './writing_tools.js';

/** What a run says of its checkpoints. */
export interface RunCheckpointRequest {
  /** The prompt, the label of its checkpoint. */
  input: string;
  /** `false`: this run takes none. */
  checkpoints?: boolean;
  on_checkpoint?: RunCheckpointsOptions['on_checkpoint'];
}

/**
 * The checkpoints of one agent.
 *
 * Contract: no I/O until a run takes a checkpoint; `prune` never rejects and runs at most one
 * prune at a time; `settled` resolves once a prune under way has ended.
 */
export class AgentCheckpoints {
  readonly #config: AgentConfig;
  readonly #on: boolean;
  #store: CheckpointStore | undefined;
  #writes: ((tool: string) => boolean) | undefined;
  #pruning: Promise<void> | undefined;

  /** `on`: false when checkpoints are off (the config, or the agent's options). */
  constructor(config: AgentConfig, on: boolean) {
    this.#config = config;
    this.#on = on;
  }

  /** The checkpoint store of the work dir, or null when checkpoints are off. No I/O. */
  store(): CheckpointStore | null {
    if (!this.#on) return null;
    this.#store ??= checkpoint_store_of(this.#config) ?? undefined;
    return this.#store ?? null;
  }

  /** The checkpoints of one run, or undefined when it takes none (no session, or off). */
  for_run(
    request: RunCheckpointRequest,
    handle: SessionHandle | null,
    on_warning: (text: string) => void,
  ): RunCheckpoints | undefined {
    if (handle === null || request.checkpoints === false) return undefined;
    const store = this.store();
    if (store === null) return undefined;
    this.#writes ??= writing_tool_test(this.#config);
    return new RunCheckpoints({
      store,
      handle,
      label: request.input,
      writes: this.#writes,
      on_warning,
      ...(request.on_checkpoint === undefined ? {} : { on_checkpoint: request.on_checkpoint }),
    });
  }

  /**
   * Prunes the store once a day at most (`prune_if_due`): the checkpoints of closed sessions
   * older than `keep_days`, then the oldest until it fits in `max_mb`. In the background.
   */
  prune(on_warning: (text: string) => void): void {
    const store = this.#store;
    if (store === undefined || this.#pruning !== undefined) return;
    const session_dir = this.#config.session_dir;
    this.#pruning = store
      .prune_if_due(prune_options(this.#config, (id) => session_is_open(session_dir, id)))
      .then(
        () => undefined,
        (error: unknown) =>
          on_warning(
            `pruning the checkpoints failed: ${error instanceof Error ? error.message : error}`,
          ),
      )
      .finally(() => {
        this.#pruning = undefined;
      });
  }

  /** Resolves once a prune under way has ended (at once when none is). Never rejects. */
  async settled(): Promise<void> {
    await this.#pruning;
  }

  /** Stops the store's watch of the work dir (the store still works). */
  close(): void {
    this.#store?.close();
  }
}
