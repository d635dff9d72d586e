import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tool, ToolOutput, ToolRunContext } from '@lich/core';
import { compare_text } from '@lich/core';
import { open_in_work_dir, path_inside } from '@lich/tools';
import { z } from 'zod';
import { parse_front_matter } from './front_matter.js';
import type { Skill } from './skill_types.js';

/** The tool's name, as the system prompt names it. */
export const SKILL_TOOL_NAME = 'skill';

/**
 * The field of a run's tool context holding a function that takes a loaded skill's
 * `allowed-tools` (already as Lich rules): it grants them for the rest of the session, when the
 * skill may (the folder is trusted, or the skill is the user's own).
 */
export const SKILL_GRANTS_FIELD = 'lich_skill_grants';

/** The grant function a run puts under `SKILL_GRANTS_FIELD`. */
export type SkillGrants = (skill: Skill) => string[];

/** Files listed after a skill's instructions, at most. */
const LISTED_FILES = 60;
/** The largest file of a skill `skill { file }` returns, in bytes. */
const SKILL_FILE_BYTES = 256 * 1024;

const parameters = z
  .object({
    name: z.string().min(1).describe('The name of the skill, as the system prompt lists it.'),
    file: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A file of the skill's folder to read instead of its instructions (a relative path).",
      ),
  })
  .strict();

/** Arguments of `skill`. */
export type SkillArgs = z.infer<typeof parameters>;

async function list_files(dir: string, prefix = '', out: string[] = []): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(join(dir, prefix), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries.sort((a, b) => compare_text(a.name, b.name))) {
    if (out.length >= LISTED_FILES || entry.name.startsWith('.')) continue;
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) await list_files(dir, path, out);
    else if (path !== 'SKILL.md') out.push(path);
  }
  return out;
}

/** Where the skill's folder is, as the model should write it for `terminal` and `read_file`. */
function shown_dir(skill: Skill, work_dir: string): string {
  const inside = path_inside(work_dir, skill.dir);
  return inside === null || inside === '' ? skill.dir : inside;
}

async function read_skill_file(skill: Skill, file: string): Promise<ToolOutput> {
  let opened: Awaited<ReturnType<typeof open_in_work_dir>>;
  try {
    opened = await open_in_work_dir(skill.dir, file);
  } catch (error) {
    return { ok: false, output: '', error: error instanceof Error ? error.message : String(error) };
  }
  try {
    if (opened.size > SKILL_FILE_BYTES) {
      return {
        ok: false,
        output: '',
        error: `${file} is ${opened.size} bytes; the limit is ${SKILL_FILE_BYTES}`,
      };
    }
    return (await opened.handle.readFile()).toString('utf8');
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

/**
 * The `skill { name, file? }` tool over the skills found: it returns a skill's instructions (the
 * body of its `SKILL.md`, read now), where its folder is and what files it holds; with `file`, one
 * file of the skill's folder (through the path guard, with the folder as the root). Loading a skill
 * grants its `allowed-tools` through `SKILL_GRANTS_FIELD` of the context, when present.
 *
 * Contract: an unknown name is `{ ok: false }` naming the skills there are; never throws.
 */
export function skill_tool(skills: readonly Skill[]): Tool<SkillArgs> {
  const by_name = new Map(skills.map((skill) => [skill.name, skill]));
  return {
    name: SKILL_TOOL_NAME,
    description:
      "Load a skill's instructions (by the name the system prompt lists) before a task it is for; " +
      "with file, read one of the skill's other files.",
    parameters,
    async execute(args, context: ToolRunContext): Promise<ToolOutput> {
      const skill = by_name.get(args.name);
      if (skill === undefined) {
        const known = [...by_name.keys()].join(', ') || '(none)';
        return {
          ok: false,
          output: '',
          error: `no skill named '${args.name}'; the skills are: ${known}`,
        };
      }
      if (args.file !== undefined) return read_skill_file(skill, args.file);
      let body: string;
      try {
        body = parse_front_matter(await readFile(skill.path, 'utf8')).body.trim();
      } catch (error) {
        return {
          ok: false,
          output: '',
          error: `${skill.path}: ${error instanceof Error ? error.message : error}`,
        };
      }
      const dir = shown_dir(skill, context.work_dir);
      const lines = [
        `# Skill: ${skill.name}`,
        '',
        `Folder: ${dir} (paths below are relative to it)`,
      ];
      const files = await list_files(skill.dir);
      if (files.length > 0) lines.push(`Files: ${files.join(', ')}`);
      const grants = context[SKILL_GRANTS_FIELD];
      if (typeof grants === 'function') {
        const granted = (grants as SkillGrants)(skill);
        if (granted.length > 0) lines.push(`Allowed without asking: ${granted.join(', ')}`);
      }
      lines.push('', body);
      return lines.join('\n');
    },
  };
}

/**
 * The system prompt's skills section: each skill's name and description, and how to load one.
 * Byte-stable for the same skills (sorted by name, no paths that change), so prompt caches hold.
 * Empty string when there are none.
 */
export function skills_prompt(skills: readonly Skill[], tool_offered: boolean): string {
  if (skills.length === 0) return '';
  const how = tool_offered
    ? `When a task matches a skill's description, call the \`${SKILL_TOOL_NAME}\` tool with its name to load its instructions first, and follow them; its files are then reachable by path.`
    : "When a task matches a skill's description, read its SKILL.md first, and follow it.";
  const entries = skills.map((skill) =>
    tool_offered
      ? `- ${skill.name}: ${skill.description}`
      : `- ${skill.name} (${skill.path}): ${skill.description}`,
  );
  return `# Skills\n\n${how}\n\n${entries.join('\n')}`;
}
