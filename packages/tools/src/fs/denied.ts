import type { ToolRunContext } from '@lich/core';
import { type DeniedPath, denied_by, deny_read_paths } from '../sandbox/deny_read.js';
import { sandbox_of } from '../sandbox/sandbox.js';
import { is_under } from '../sandbox/unix_sockets.js';
import { PathGuardError, real_work_dir } from './guard.js';

/** How long one work dir's list is used: a tool call makes several lookups. */
const TTL_MS = 1_000;
const cache = new WeakMap<object, Map<string, { until: number; inside: DeniedPath[] }>>();

/**
 * The masked paths (`deny_read_paths`, the sandbox's own list) that lie inside the context's work
 * dir: the ones a file tool could otherwise reach. Usually none, and then the tools check nothing.
 *
 * Contract: never throws; looked up again at most every second per sandbox config and work dir.
 */
export function denied_in_work_dir(context: ToolRunContext): DeniedPath[] {
  const config = sandbox_of(context).config;
  let root: string;
  try {
    root = real_work_dir(context.work_dir);
  } catch {
    return [];
  }
  let by_dir = cache.get(config);
  if (by_dir === undefined) {
    by_dir = new Map();
    cache.set(config, by_dir);
  }
  const now = performance.now();
  const known = by_dir.get(root);
  if (known !== undefined && now < known.until) return known.inside;
  const inside = deny_read_paths(config, root).filter((entry) => is_under(entry.path, root));
  if (by_dir.size > 16) by_dir.clear();
  by_dir.set(root, { until: now + TTL_MS, inside });
  return inside;
}

/**
 * Throws a `PathGuardError` when `path` (a real path the guard accepted) lies in a masked
 * credential store, naming it and how to allow it.
 */
export function refuse_denied(context: ToolRunContext, path: string, shown: string): void {
  const inside = denied_in_work_dir(context);
  if (inside.length === 0) return;
  const entry = denied_by(path, inside);
  if (entry === undefined) return;
  throw new PathGuardError(
    `'${shown}' is in ${entry.entry}, which is masked from tools and commands (credentials). To allow it, add it to sandbox.allow_read in .lich/config.json.`,
  );
}

/** A filter for listing tools: false for a real path inside a masked store. */
export function not_denied(context: ToolRunContext): (path: string) => boolean {
  const inside = denied_in_work_dir(context);
  if (inside.length === 0) return () => true;
  return (path) => denied_by(path, inside) === undefined;
}
