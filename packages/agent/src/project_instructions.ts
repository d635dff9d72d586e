import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';

/** The file name project instructions are read from. */
export const PROJECT_INSTRUCTIONS_FILE = 'AGENTS.md';

/** How much of one AGENTS.md is kept, in characters. */
export const PROJECT_INSTRUCTIONS_LIMIT = 32_000;

/** One AGENTS.md that was found. */
export interface ProjectInstructions {
  path: string;
  content: string;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The AGENTS.md files of `work_dir` and of its parents up to the repository root (the nearest
 * folder holding `.git`), outermost first so the most specific instructions come last. Outside a
 * repository only `work_dir` is looked at. Unreadable files are skipped; never throws.
 */
export async function find_project_instructions(
  work_dir: string,
  options: { signal?: AbortSignal } = {},
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
    const path = join(candidate, PROJECT_INSTRUCTIONS_FILE);
    try {
      const content = await readFile(path, { encoding: 'utf8', signal: options.signal });
      if (content.trim() === '') continue;
      const clamped =
        content.length > PROJECT_INSTRUCTIONS_LIMIT
          ? `${content.slice(0, PROJECT_INSTRUCTIONS_LIMIT)}\n[… AGENTS.md cut at ${PROJECT_INSTRUCTIONS_LIMIT} characters]`
          : content;
      found.push({ path, content: clamped.trimEnd() });
    } catch {
      // no AGENTS.md here, or unreadable: nothing to add
    }
  }
  return found;
}

/**
 * The system prompt with the project instructions appended under a heading, each file named
 * relative to `work_dir`. Returns `system_prompt` unchanged when there are none. Pure.
 */
export function with_project_instructions(
  system_prompt: string,
  instructions: readonly ProjectInstructions[],
  work_dir: string,
): string {
  if (instructions.length === 0) return system_prompt;
  const sections = instructions.map((entry) => {
    const name = relative(work_dir, entry.path) || PROJECT_INSTRUCTIONS_FILE;
    return `## ${name}\n\n${entry.content}`;
  });
  return `${system_prompt}\n\n# Project instructions\n\n${sections.join('\n\n')}`;
}
