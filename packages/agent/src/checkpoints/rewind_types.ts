/**
 * The shapes of rewind, as every surface speaks them: the prompts a session can be rewound to,
 * what to rewind, and what it did. Types only.
 */
import type { FileChange, FileKind, RestoreActionKind, SkipReason } from '@lich/checkpoints';

/** What a rewind puts back: the conversation and the files, or one of them. */
export type RewindScope = 'all' | 'files' | 'conversation';

/** How a rewind treats a file someone else changed since the agent left it. */
export type RewindConflictChoice = 'stop' | 'overwrite' | 'keep';

/** One prompt of a session, as `/rewind` lists it. */
export interface RewindPoint {
  /** 1-based position among the session's prompts: what `rewind` takes. */
  prompt: number;
  /** The run's number in the session file. */
  run: number;
  /** The prompt, on one line. */
  input: string;
  /** When it was sent (ISO 8601). */
  at: string;
  /** Its files can be rewound: a checkpoint from before it (or before a later change) is kept. */
  files: boolean;
  /** Its conversation can be rewound (compression has not folded it into a summary). */
  conversation: boolean;
  /** The files this prompt changed, with lines added and removed; empty when it changed none. */
  changes: FileChange[];
  added_lines: number;
  removed_lines: number;
}

/** What to rewind. */
export interface RewindRequest {
  /** The prompt to go back to (`RewindPoint.prompt`): it and every later one are undone. */
  prompt?: number;
  /** Undo the last rewind instead (`prompt` is ignored). */
  redo?: boolean;
  /** Default `all`. */
  scope?: RewindScope;
  /** Say what would change; change nothing. */
  dry_run?: boolean;
  /**
   * A file someone else changed since the agent's last change: `stop` (default) changes nothing
   * and reports it; `overwrite` restores it too (the redo keeps their version); `keep` leaves it.
   */
  on_conflict?: RewindConflictChoice;
}

/** One path a rewind restored (or would). */
export interface RewoundPath {
  path: string;
  action: RestoreActionKind;
  kind: FileKind;
}

/** What a rewind did to the files. */
export interface RewindFiles {
  /** The checkpoint the files were put back to. */
  checkpoint: string;
  restored: RewoundPath[];
  /** Paths someone else changed that the rewind would change. */
  conflicts: string[];
  skipped: { path: string; reason: SkipReason; message?: string }[];
  /** Folders left out of checkpoints (dependency folders) that were there: not restored. */
  not_restored: string[];
  /** The checkpoint taken just before: `redo` goes back to it. */
  redo_checkpoint?: string;
}

/** What a rewind did, or would do. */
export interface RewindOutcome {
  /**
   * `rewound`; `planned` for a dry run; `conflicts` when it stopped before changing anything;
   * `nothing` when there was nothing to do.
   */
  status: 'rewound' | 'planned' | 'conflicts' | 'nothing';
  /** The prompt rewound to, and its text (a surface puts it back in the input). */
  prompt?: number;
  input?: string;
  redo: boolean;
  files?: RewindFiles;
  /** Messages the conversation lost (a rewind) or got back (a redo). */
  conversation?: { removed: number; restored: number };
  /** What happened, in a few lines for a person. */
  summary: string;
}
