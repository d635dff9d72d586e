import { readdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { compare_text } from '@lich/core';
import { user_config_path } from '../config/config_file.js';
import { project_folders } from '../project_folders.js';
import { parse_front_matter, string_list } from './front_matter.js';
import type { Skill, SkillCatalog, SkillScope } from './skill_types.js';
import { SKILL_IMPORTS } from './skills_schema.js';

/** The project folders skills are looked for in, in each folder from the work dir up, in order. */
export const PROJECT_SKILL_FOLDERS: readonly string[] = [
  '.lich/skills',
  '.agents/skills',
  '.claude/skills',
];

/** The largest `SKILL.md` read, in bytes. */
export const SKILL_FILE_MAX_BYTES = 256 * 1024;

/** Where to look for skills. */
export interface FindSkillsOptions {
  work_dir: string;
  /** Lich's user config folder (`~/.config/lich`): its `skills/` comes after the project's. */
  config_dir: string;
  /** `skills.import`: names of `SKILL_IMPORTS` or paths (`~/` allowed). */
  imports?: readonly string[];
  /** The home folder for `~` (default: the user's). */
  home?: string;
}

/** One folder that may hold skill folders, and what its skills count as. */
export interface SkillRoot {
  dir: string;
  scope: SkillScope;
}

function expand_home(path: string, home: string): string {
  return path === '~' || path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

/** The folders skills are looked for in, nearest first (see `find_skills`). */
export async function skill_roots(options: FindSkillsOptions): Promise<SkillRoot[]> {
  const home = options.home ?? homedir();
  const roots: SkillRoot[] = [];
  for (const folder of await project_folders(options.work_dir)) {
    for (const name of PROJECT_SKILL_FOLDERS)
      roots.push({ dir: join(folder, name), scope: 'project' });
  }
  roots.push({ dir: join(options.config_dir, 'skills'), scope: 'user' });
  for (const entry of options.imports ?? []) {
    const path = SKILL_IMPORTS[entry] ?? entry;
    roots.push({ dir: resolve(options.work_dir, expand_home(path, home)), scope: 'import' });
  }
  return roots;
}

async function is_file(path: string): Promise<number | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads one `SKILL.md` into a `Skill`, or a warning naming the file. The name is the front
 * matter's `name`, else the folder's; a skill without a description is refused (the description
 * is all the model sees of it).
 */
export async function read_skill(
  path: string,
  scope: SkillScope,
): Promise<{ skill: Skill } | { warning: string }> {
  const dir = resolve(path, '..');
  const size = await is_file(path);
  if (size === undefined) return { warning: `skill ${path} is not a regular file; skipped` };
  if (size > SKILL_FILE_MAX_BYTES) {
    return { warning: `skill ${path} is ${size} bytes (limit ${SKILL_FILE_MAX_BYTES}); skipped` };
  }
  let data: Record<string, unknown>;
  try {
    ({ data } = parse_front_matter(await readFile(path, 'utf8')));
  } catch (error) {
    return {
      warning: `skill ${path} was skipped: ${error instanceof Error ? error.message : error}`,
    };
  }
  const name =
    typeof data.name === 'string' && data.name.trim() !== '' ? data.name.trim() : basename(dir);
  const description = typeof data.description === 'string' ? data.description.trim() : '';
  if (description === '') {
    return { warning: `skill ${path} was skipped: its front matter has no description` };
  }
  const allowed_tools = string_list(data['allowed-tools'] ?? data.allowed_tools);
  return {
    skill: {
      name,
      description: description.replace(/\s+/g, ' '),
      path,
      dir,
      scope,
      ...(allowed_tools === undefined ? {} : { allowed_tools }),
    },
  };
}

/**
 * Finds the skills: each `<root>/<skill>/SKILL.md` under `.lich/skills/`, `.agents/skills/` and
 * `.claude/skills/` of the work dir and of each parent up to the repository root (nearest folder
 * first, and in that order within a folder), then `<config_dir>/skills/`, then each `imports`
 * folder. When two skills share a name, the first found wins and the other is named in a
 * warning. Skills are listed by name.
 *
 * Contract: never throws; a missing folder is skipped silently; a malformed `SKILL.md` (bad YAML,
 * no description, too big) is a warning naming the file, and the other skills are still found.
 */
export async function find_skills(options: FindSkillsOptions): Promise<SkillCatalog> {
  const found = new Map<string, Skill>();
  const warnings: string[] = [];
  const seen_dirs = new Set<string>();
  for (const root of await skill_roots(options)) {
    if (seen_dirs.has(root.dir)) continue;
    seen_dirs.add(root.dir);
    let entries: string[];
    try {
      entries = (await readdir(root.dir)).sort();
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.startsWith('.')) continue;
      const path = join(root.dir, entry, 'SKILL.md');
      if ((await is_file(path)) === undefined) continue;
      const read = await read_skill(path, root.scope);
      if ('warning' in read) {
        warnings.push(read.warning);
        continue;
      }
      const earlier = found.get(read.skill.name);
      if (earlier !== undefined) {
        warnings.push(
          `skill ${path} is hidden by ${earlier.path}, of the same name '${read.skill.name}'`,
        );
        continue;
      }
      found.set(read.skill.name, read.skill);
    }
  }
  const skills = [...found.values()].sort((a, b) => compare_text(a.name, b.name));
  return { skills, warnings };
}

/**
 * The skills of a config, as an Agent of it would find them (`skills.enabled`, `skills.import`,
 * the user's config folder from `env`), for `lich skills list`. Never rejects.
 */
export async function find_skills_for(
  config: { work_dir: string; skills: { enabled: boolean; import: readonly string[] } },
  env: Readonly<Record<string, string | undefined>>,
): Promise<SkillCatalog> {
  if (!config.skills.enabled) return { skills: [], warnings: [] };
  return find_skills({
    work_dir: config.work_dir,
    config_dir: dirname(user_config_path(env)),
    imports: config.skills.import,
    ...(env.HOME ? { home: env.HOME } : {}),
  });
}
