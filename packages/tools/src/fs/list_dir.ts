import { closeSync, constants, openSync, readlinkSync } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import type { Tool, ToolOutput } from '@lich/core';
import { z } from 'zod';
import { not_denied, refuse_denied } from './denied.js';
import { decode_name, NOT_UTF8_MARK } from './glob_fs.js';
import { error_text, PathGuardError } from './guard.js';
import { stat_in_work_dir } from './safe_fs.js';

/** The most entries `list_dir` shows. */
export const LIST_DIR_MAX_ENTRIES = 1_000;

const parameters = z
  .object({
    path: z
      .string()
      .optional()
      .describe('Folder to list, relative to the work dir. Default: the work dir.'),
  })
  .strict();

/** Arguments of `list_dir`. */
export type ListDirArgs = z.infer<typeof parameters>;

/**
 * `list_dir { path? }`: the entries of one folder, sorted by name.
 *
 * Contract: folders end in `/`, symbolic links show as `name -> target` (never followed), files
 * show their size; names that are not valid UTF-8 are shown with replacement characters and
 * marked; at most `LIST_DIR_MAX_ENTRIES` entries, the rest counted. Refuses a path the guard
 * refuses, a missing path and a file (naming `read_file`).
 */
export const list_dir_tool: Tool<ListDirArgs> = {
  name: 'list_dir',
  description:
    'List the entries of a folder (default: the work dir). Folders end in "/", links show their target.',
  parameters,
  async execute(args, context): Promise<ToolOutput> {
    const { guarded, stats, shown } = stat_in_work_dir(context.work_dir, args.path);
    if (!stats.isDirectory()) {
      throw new PathGuardError(`'${shown}' is a file, not a folder; use read_file to read it`);
    }
    refuse_denied(context, guarded.path, shown);
    const visible = not_denied(context);
    const held = hold_folder(guarded.path, shown);
    try {
      return await list_held(held.path, guarded.path, shown, visible, context.signal);
    } finally {
      if (held.fd !== undefined) closeSync(held.fd);
    }
  },
};

/**
 * Opens the folder (never through a final link) and checks it is the one the guard checked; on
 * Linux the listing then goes through `/proc/self/fd/<fd>`, the folder held open, so a folder
 * swapped for a link afterwards changes nothing it shows.
 */
function hold_folder(path: string, shown: string): { path: string; fd?: number } {
  if (process.platform !== 'linux') return { path };
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    throw new PathGuardError(`'${shown}' cannot be listed: ${error_text(error)}`);
  }
  let opened: string;
  try {
    opened = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    opened = '';
  }
  if (opened !== path) {
    closeSync(fd);
    throw new PathGuardError(`'${shown}' changed while it was being opened`);
  }
  return { path: `/proc/self/fd/${fd}`, fd };
}

async function list_held(
  base: string,
  real: string,
  shown: string,
  visible: (path: string) => boolean,
  signal: AbortSignal,
): Promise<string> {
  let names: Buffer[];
  try {
    names = await readdir(base, { encoding: 'buffer' });
  } catch (error) {
    throw new PathGuardError(`'${shown}' cannot be listed: ${error_text(error)}`);
  }
  if (names.length === 0) return `(${shown} is empty)`;
  names.sort(Buffer.compare);
  const kept = names.slice(0, LIST_DIR_MAX_ENTRIES);
  const folder = Buffer.from(`${base}/`);
  const lines: string[] = [];
  for (const raw of kept) {
    signal.throwIfAborted();
    const name = describe_name(raw);
    const full = Buffer.concat([folder, raw]);
    // a masked store inside the work dir is shown as a name only: its size or target may tell
    if (!visible(`${real}/${raw.toString('utf8')}`)) {
      lines.push(`${name}  (masked: credentials)`);
      continue;
    }
    try {
      const entry = await lstat(full);
      if (entry.isDirectory()) lines.push(`${name}/`);
      else if (entry.isSymbolicLink()) lines.push(`${name} -> ${await readlink(full, 'utf8')}`);
      else if (entry.isFile()) lines.push(`${name}  (${format_size(entry.size)})`);
      else lines.push(`${name}  (special file)`);
    } catch {
      lines.push(`${name}  (vanished)`);
    }
  }
  if (names.length > kept.length) {
    lines.push(`(${names.length - kept.length} more entries not shown)`);
  }
  return lines.join('\n');
}

function describe_name(raw: Buffer): string {
  return decode_name(raw) ?? `${raw.toString('utf8')}${NOT_UTF8_MARK}`;
}

/** A byte count for people: `512 B`, `1.2 KB`, `3.4 MB`. */
export function format_size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
