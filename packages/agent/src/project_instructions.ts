import { lstat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { open_in_work_dir } from '@lich/tools';

/** The file name project instructions are read from first. */
export const PROJECT_INSTRUCTIONS_FILE = 'AGENTS.md';

/** Read in a folder that has no AGENTS.md, in this order (other agents' names for it). */
export const FALLBACK_INSTRUCTIONS_FILES: readonly string[] = ['CLAUDE.md', 'GEMINI.md'];

/** How much of one instructions file is kept, in characters. */
export const PROJECT_INSTRUCTIONS_LIMIT = 32_000;

/** The largest instructions file read at all, in bytes; a bigger one is skipped with a warning. */
export const INSTRUCTIONS_MAX_BYTES = 256 * 1024;

/** One instructions file that was found. */
export interface ProjectInstructions {
  path: string;
  content: string;
  /** `user` for `$XDG_CONFIG_HOME/lich/AGENTS.md`; absent for a project's file. */
  scope?: 'user' | 'project';
}

/** How instructions are looked for. */
export interface FindInstructionsOptions {
  signal?: AbortSignal;
  /** Hears a file that exists but was not read, and why (a link out of its folder, a device…). */
  on_skip?: (path: string, reason: string) => void;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads `name` in `folder` through the same guard as the `read_file` tool, with `folder` as the
 * root: a link that leads out of the folder, a folder, a FIFO or a device is not read, nor a file
 * over `INSTRUCTIONS_MAX_BYTES`. Resolves with the text, `undefined` when there is no such file,
 * or `null` when it exists but was refused (`on_skip` is told why).
 */
async function read_guarded(
  folder: string,
  name: string,
  options: FindInstructionsOptions,
): Promise<string | undefined | null> {
  const path = join(folder, name);
  if (!(await exists(path))) return undefined;
  let opened: Awaited<ReturnType<typeof open_in_work_dir>>;
  try {
    opened = await open_in_work_dir(folder, name);
  } catch (error) {
    options.on_skip?.(path, error instanceof Error ? error.message : String(error));
    return null;
  }
  try {
    if (opened.size > INSTRUCTIONS_MAX_BYTES) {
      options.on_skip?.(path, `it is ${opened.size} bytes; the limit is ${INSTRUCTIONS_MAX_BYTES}`);
      return null;
    }
    const buffer = Buffer.alloc(opened.size);
    let length = 0;
    while (length < buffer.length) {
      options.signal?.throwIfAborted();
      const { bytesRead } = await opened.handle.read(buffer, length, buffer.length - length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length).toString('utf8');
  } catch (error) {
    options.on_skip?.(path, error instanceof Error ? error.message : String(error));
    return null;
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

function clamp(path: string, content: string): ProjectInstructions {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const clamped =
    content.length > PROJECT_INSTRUCTIONS_LIMIT
      ? `${content.slice(0, PROJECT_INSTRUCTIONS_LIMIT)}\n[… ${name} cut at ${PROJECT_INSTRUCTIONS_LIMIT} characters]`
      : content;
  return { path, content: clamped.trimEnd() };
}

/**
 * The instructions of one folder: its AGENTS.md, or when it has none its CLAUDE.md, else its
 * GEMINI.md. A file that exists but is refused does not make way for the next name.
 */
async function folder_instructions(
  folder: string,
  options: FindInstructionsOptions,
): Promise<ProjectInstructions | undefined> {
  for (const name of [PROJECT_INSTRUCTIONS_FILE, ...FALLBACK_INSTRUCTIONS_FILES]) {
    const content = await read_guarded(folder, name, options);
    if (content === undefined) continue;
    if (content === null || content.trim() === '') return undefined;
    return clamp(join(folder, name), content);
  }
  return undefined;
}

/**
 * The instructions files of `work_dir` and of its parents up to the repository root (the nearest
 * folder holding `.git`), outermost first so the most specific instructions come last. Outside a
 * repository only `work_dir` is looked at. In each folder `AGENTS.md` is read, else `CLAUDE.md`,
 * else `GEMINI.md`.
 *
 * Contract: each file is read through the path guard of `read_file` with its own folder as the
 * root (a link out of the folder is refused), only when it is a regular file of at most
 * `INSTRUCTIONS_MAX_BYTES`, and kept to `PROJECT_INSTRUCTIONS_LIMIT` characters; a refused file is
 * reported to `on_skip` and left out. Never throws.
 */
export async function find_project_instructions(
  work_dir: string,
  options: FindInstructionsOptions = {},
): Promise<ProjectInstructions[]> {
  const start = resolve(work_dir);
  const folders: string[] = [];
  let folder = start;
  let in_repository = false;
  for (;;) {
    folders.push(folder);
    if (await exists(join(folder, '.git'))) {
      in_repository = true;
      break;
    }
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  const chosen = in_repository ? folders.reverse() : [start];
  const found: ProjectInstructions[] = [];
  for (const candidate of chosen) {
    const entry = await folder_instructions(candidate, options).catch(() => undefined);
    if (entry) found.push(entry);
  }
  return found;
}

/** `$XDG_CONFIG_HOME/lich/AGENTS.md` (default `~/.config/lich/AGENTS.md`). */
export function user_instructions_path(config_dir: string): string {
  return join(config_dir, PROJECT_INSTRUCTIONS_FILE);
}

/**
 * The user's own instructions for every project: `AGENTS.md` in Lich's config folder
 * (`$XDG_CONFIG_HOME/lich`), read as the project files are (guarded, regular, limited). Resolves
 * with it, or undefined when there is none. Never throws.
 */
export async function find_user_instructions(
  config_dir: string,
  options: FindInstructionsOptions = {},
): Promise<ProjectInstructions | undefined> {
  const content = await read_guarded(config_dir, PROJECT_INSTRUCTIONS_FILE, options).catch(
    () => null,
  );
  if (content === undefined || content === null || content.trim() === '') return undefined;
  return { ...clamp(user_instructions_path(config_dir), content), scope: 'user' };
}

/**
 * The system prompt with the instructions appended under a heading: the user's first (named as
 * such), then each project file named relative to `work_dir`. Returns `system_prompt` unchanged
 * when there are none. Pure.
 */
export function with_project_instructions(
  system_prompt: string,
  instructions: readonly ProjectInstructions[],
  work_dir: string,
): string {
  if (instructions.length === 0) return system_prompt;
  const sections = instructions.map((entry) => {
    const name =
      entry.scope === 'user'
        ? `${PROJECT_INSTRUCTIONS_FILE} (the user's, for every project)`
        : relative(work_dir, entry.path) || PROJECT_INSTRUCTIONS_FILE;
    return `## ${name}\n\n${entry.content}`;
  });
  return `${system_prompt}\n\n# Project instructions\n\n${sections.join('\n\n')}`;
}
