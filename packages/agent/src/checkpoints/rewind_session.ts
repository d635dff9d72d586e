import type { CheckpointStore, RestoreResult } from '@lich/checkpoints';
import type { Message } from '@lich/core';
import { conversation_of, type SessionHandle, type SessionState } from '@lich/session';
import { SessionHostError } from '../host/session_host_error.js';
import { files_target, is_kept } from './rewind_points.js';
import { rewind_summary } from './rewind_text.js';
import type { RewindFiles, RewindOutcome, RewindRequest } from './rewind_types.js';

/** The session a rewind works on. */
export interface RewindTarget {
  /** The work dir's checkpoints; null when they are off (then only the conversation rewinds). */
  store: CheckpointStore | null;
  /** The session's file, held for writing: the rewind is recorded there. */
  handle: SessionHandle;
  /** Takes the conversation after a rewind of it (the session's history from now on). */
  set_history(messages: Message[]): void;
}

/**
 * Paths changed by someone other than the agent since checkpoint `from`: in every gap between a
 * checkpoint the agent left (a prompt's end, a rewind's end) and the next one it took (a prompt's
 * first change, a rewind's start). What changed since the last one is found by the restore
 * itself (`expected`).
 */
function foreign_paths(
  store: CheckpointStore,
  state: Readonly<SessionState>,
  from: string,
): Set<string> {
  const foreign = new Set<string>();
  const marks = state.checkpoints;
  const start = marks.findIndex((mark) => mark.checkpoint_id === from);
  for (let i = Math.max(start, 0); i + 1 < marks.length; i++) {
    const left = marks[i]!;
    const next = marks[i + 1]!;
    const agent_left = left.kind === 'after_prompt' || left.kind === 'after_rewind';
    const agent_took = next.kind === 'before_prompt' || next.kind === 'before_rewind';
    if (!agent_left || !agent_took) continue;
    try {
      for (const path of store.changed_paths(left.checkpoint_id, next.checkpoint_id))
        foreign.add(path);
    } catch {
      // a pruned checkpoint: what happened in that gap is not known
    }
  }
  return foreign;
}

function last_checkpoint(
  store: CheckpointStore,
  state: Readonly<SessionState>,
): string | undefined {
  for (let i = state.checkpoints.length - 1; i >= 0; i--) {
    const id = state.checkpoints[i]!.checkpoint_id;
    if (is_kept(store, id)) return id;
  }
  return undefined;
}

function files_of(result: RestoreResult): RewindFiles {
  return {
    checkpoint: result.target.id,
    restored: result.actions.map(({ path, action, kind }) => ({ path, action, kind })),
    conflicts: result.conflicts,
    skipped: result.skipped,
    not_restored: [...result.target.excluded],
    ...(result.before === undefined ? {} : { redo_checkpoint: result.before.id }),
  };
}

async function restore_files(
  target: RewindTarget,
  checkpoint: string,
  request: RewindRequest,
  label: string,
): Promise<RestoreResult> {
  const store = target.store!;
  const state = target.handle.state;
  const expected = last_checkpoint(store, state);
  return store.restore(checkpoint, {
    dry_run: request.dry_run === true,
    ...(expected === undefined ? {} : { expected }),
    foreign_paths: foreign_paths(store, state, checkpoint),
    on_conflict: request.on_conflict ?? 'stop',
    session_id: target.handle.id,
    label,
  });
}

/**
 * Rewinds a session to before prompt `request.prompt`: the files as they were before its first
 * change (`@lich/checkpoints`), and the conversation as it was before it was sent, or either one
 * alone (`scope`). A file someone else changed since the agent left it is a conflict: with
 * `on_conflict: 'stop'` (the default) nothing changes and the conflicts are reported. The rewind
 * is recorded in the session (a `rewind` record), so `redo` can undo it: the files go back to the
 * checkpoint taken just before it, and the conversation gets its messages back when no prompt ran
 * since.
 *
 * Contract: rejects with a `SessionHostError`: `invalid_argument` for a prompt the session does
 * not have, a conversation compression folded away, or a scope with nothing to rewind;
 * `unavailable` when the checkpoint was pruned or the store fails. The caller makes sure no run
 * is in flight.
 */
export async function rewind_session(
  target: RewindTarget,
  request: RewindRequest,
): Promise<RewindOutcome> {
  if (request.redo === true) return redo_rewind(target, request);
  const { handle } = target;
  const state = handle.state;
  const scope = request.scope ?? 'all';
  const index = (request.prompt ?? 0) - 1;
  const prompt = state.prompts[index];
  if (prompt === undefined || !Number.isInteger(request.prompt)) {
    const count = state.prompts.length;
    throw new SessionHostError(
      'invalid_argument',
      count === 0
        ? 'this session has no prompts to rewind'
        : `no prompt ${String(request.prompt)}: this session has prompts 1 to ${count}`,
    );
  }
  const files_wanted = scope !== 'conversation';
  const conversation_wanted = scope !== 'files';
  if (conversation_wanted && !prompt.conversation) {
    throw new SessionHostError(
      'invalid_argument',
      `the conversation before prompt ${request.prompt} was folded into a summary (compression); rewind its files alone (files only)`,
    );
  }
  const checkpoint =
    files_wanted && target.store !== null
      ? files_target(target.store, state.prompts, index)
      : undefined;
  if (files_wanted && scope === 'files' && checkpoint === undefined) {
    const why =
      target.store === null
        ? 'checkpoints are off (checkpoints: false)'
        : `no prompt from ${request.prompt} on changed files that a checkpoint still holds`;
    throw new SessionHostError('invalid_argument', `nothing to rewind in the files: ${why}`);
  }
  const base = { prompt: index + 1, input: prompt.input, redo: false };
  let files: RewindFiles | undefined;
  let restored: RestoreResult | undefined;
  if (checkpoint !== undefined) {
    restored = await restore_files(
      target,
      checkpoint,
      request,
      `rewind to prompt ${index + 1}`,
    ).catch((error: unknown) => {
      throw new SessionHostError(
        'unavailable',
        `the files cannot be rewound: ${error instanceof Error ? error.message : error}`,
      );
    });
    files = files_of(restored);
    if (restored.status === 'conflicts') {
      return {
        ...base,
        status: 'conflicts',
        files,
        summary: rewind_summary('conflicts', base.prompt, files),
      };
    }
  }
  const removed = conversation_wanted ? Math.max(state.slots.length - prompt.kept, 0) : 0;
  const conversation = conversation_wanted ? { removed, restored: 0 } : undefined;
  if (request.dry_run === true) {
    const status = (files?.restored.length ?? 0) > 0 || removed > 0 ? 'planned' : 'nothing';
    return {
      ...base,
      status,
      ...(files === undefined ? {} : { files }),
      ...(conversation === undefined ? {} : { conversation }),
      summary: rewind_summary(status, base.prompt, files, conversation),
    };
  }
  await handle.append({
    type: 'rewind',
    run: prompt.run,
    ...(conversation_wanted ? { kept: prompt.kept, messages: [] } : {}),
    ...(restored?.status === 'restored'
      ? { restored: restored.target.id, before: restored.before!.id, after: restored.after!.id }
      : {}),
  });
  if (conversation_wanted) target.set_history(conversation_of(handle.state));
  return {
    ...base,
    status: 'rewound',
    ...(files === undefined ? {} : { files }),
    ...(conversation === undefined ? {} : { conversation }),
    summary: rewind_summary('rewound', base.prompt, files, conversation),
  };
}

/** Undoes the session's last rewind: see `rewind_session`. */
async function redo_rewind(target: RewindTarget, request: RewindRequest): Promise<RewindOutcome> {
  const { handle } = target;
  const state = handle.state;
  const last = state.last_rewind;
  if (last === undefined) {
    throw new SessionHostError('invalid_argument', 'there is no rewind to redo in this session');
  }
  const scope = request.scope ?? 'all';
  let files: RewindFiles | undefined;
  let restored: RestoreResult | undefined;
  if (scope !== 'conversation' && last.before !== undefined && target.store !== null) {
    if (!is_kept(target.store, last.before)) {
      throw new SessionHostError(
        'unavailable',
        `the checkpoint before the last rewind (${last.before}) was pruned`,
      );
    }
    restored = await restore_files(target, last.before, request, 'redo').catch((error: unknown) => {
      throw new SessionHostError(
        'unavailable',
        `the files cannot be put back: ${error instanceof Error ? error.message : error}`,
      );
    });
    files = files_of(restored);
    if (restored.status === 'conflicts') {
      return {
        status: 'conflicts',
        redo: true,
        files,
        summary: rewind_summary('conflicts', undefined, files),
      };
    }
  }
  const cut = last.cut?.filter((message): message is Message => message !== undefined);
  const conversation_back = scope !== 'files' && cut !== undefined && state.runs === last.runs;
  const conversation = conversation_back ? { removed: 0, restored: cut.length } : undefined;
  const notes: string[] = [];
  if (scope !== 'files' && cut !== undefined && !conversation_back) {
    notes.push('The conversation was not put back: a prompt ran since the rewind.');
  }
  if (request.dry_run === true) {
    return {
      status: 'planned',
      redo: true,
      ...(files === undefined ? {} : { files }),
      ...(conversation === undefined ? {} : { conversation }),
      summary: rewind_summary('planned', undefined, files, conversation, notes),
    };
  }
  await handle.append({
    type: 'rewind',
    run: last.run,
    redo: true,
    ...(conversation_back ? { kept: state.slots.length, messages: cut } : {}),
    ...(restored?.status === 'restored'
      ? { restored: restored.target.id, before: restored.before!.id, after: restored.after!.id }
      : {}),
  });
  if (conversation_back) target.set_history(conversation_of(handle.state));
  return {
    status: 'rewound',
    redo: true,
    ...(files === undefined ? {} : { files }),
    ...(conversation === undefined ? {} : { conversation }),
    summary: rewind_summary('rewound', undefined, files, conversation, notes),
  };
}
