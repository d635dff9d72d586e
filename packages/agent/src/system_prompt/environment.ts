import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** Where the model works, as the system prompt tells it. */
export interface PromptEnvironment {
  /** `Linux`, `macOS`, `Windows` or the platform's own name. */
  platform: string;
  /** The shell commands run in (`terminal` runs `bash -c`). */
  shell: string;
  work_dir: string;
  /** The local date, `YYYY-MM-DD`: a day, never a time, so the prompt holds all day. */
  date: string;
  /** The git repository the work dir is in, or null when it is in none. */
  git: { branch: string | null } | null;
}

const PLATFORMS: Readonly<Record<string, string>> = {
  linux: 'Linux',
  darwin: 'macOS',
  win32: 'Windows',
};

/** `date` as `YYYY-MM-DD` in local time. */
export function local_day(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function read_text(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The git repository holding `work_dir` and its branch, read from `.git` without running git: a
 * folder, or a file pointing at one (a worktree, a submodule). `branch` is null on a detached
 * HEAD (a commit id would change with every commit). Null when there is no repository.
 */
export function git_state(work_dir: string): { branch: string | null } | null {
  let folder = resolve(work_dir);
  for (;;) {
    const dot_git = join(folder, '.git');
    let git_dir: string | undefined;
    try {
      const stat = statSync(dot_git);
      if (stat.isDirectory()) git_dir = dot_git;
      else if (stat.isFile()) {
        const pointer = /^gitdir:\s*(.+)$/m.exec(read_text(dot_git) ?? '')?.[1]?.trim();
        if (pointer !== undefined)
          git_dir = isAbsolute(pointer) ? pointer : resolve(folder, pointer);
      }
    } catch {
      git_dir = undefined;
    }
    if (git_dir !== undefined) {
      const head = read_text(join(git_dir, 'HEAD'))?.trim() ?? '';
      const branch = /^ref:\s*refs\/heads\/(.+)$/.exec(head)?.[1] ?? null;
      return { branch };
    }
    const parent = dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
}

/**
 * What the system prompt says of the machine: platform, shell, work dir, today's date and the git
 * branch. Never throws.
 */
export function prompt_environment(options: {
  work_dir: string;
  now?: Date;
  platform?: NodeJS.Platform;
}): PromptEnvironment {
  const platform = options.platform ?? process.platform;
  return {
    platform: PLATFORMS[platform] ?? platform,
    shell: platform === 'win32' ? 'bash (through the terminal tool)' : 'bash',
    work_dir: options.work_dir,
    date: local_day(options.now ?? new Date()),
    git: git_state(options.work_dir),
  };
}
