import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** A kind of subagent: its instructions, the tools it may use, the model it runs on. */
export interface SubagentType {
  name: string;
  description: string;
  /** The system prompt of its sessions. */
  prompt: string;
  /** The tools it may use; absent: those of the parent, `task` included only below the depth limit. */
  tools?: readonly string[];
  /** `model` or `provider/model`; absent (or `inherit`): the parent's. */
  model?: string;
  /** The file it was read from; absent for the built-in type. */
  path?: string;
}

/** The type used when the model names none: a general helper with the parent's tools. */
export const GENERAL_SUBAGENT: SubagentType = {
  name: 'general',
  description: 'A general helper for a self-contained job: research, a search, a change.',
  prompt: [
    'You are a subagent of Lich, started by another agent for one self-contained job.',
    'Do the job with the tools you have. You cannot ask the user anything: decide for yourself.',
    'The agent that started you sees only your final answer, nothing else: make it a complete,',
    'self-contained report of what you found or did (paths, names, results), short and exact.',
  ].join('\n'),
};

/** Claude Code's tool names, as Lich names the same tools (for `.claude/agents` files). */
const CLAUDE_TOOLS: Readonly<Record<string, string>> = {
  Read: 'read_file',
  Write: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  LS: 'list_dir',
  Glob: 'glob',
  Grep: 'grep',
  Bash: 'terminal',
  WebFetch: 'web_fetch',
  TodoWrite: 'todo_write',
  Task: 'task',
};

/**
 * Splits a markdown file into its front matter (`key: value` lines between `---` fences; a value
 * may be a `[a, b]` list, or a `- item` list on the following lines) and its body. Pure.
 */
export function read_front_matter(text: string): {
  fields: Record<string, string | string[]>;
  body: string;
} {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text.replace(/^\uFEFF/, ''));
  if (match === null) return { fields: {}, body: text.trim() };
  const fields: Record<string, string | string[]> = {};
  let list_key: string | undefined;
  for (const raw of (match[1] ?? '').split(/\r?\n/)) {
    const item = /^\s+-\s*(.+)$/.exec(raw);
    if (item !== null && list_key !== undefined) {
      const list = fields[list_key];
      fields[list_key] = [...(Array.isArray(list) ? list : []), unquote(item[1] as string)];
      continue;
    }
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(raw);
    if (pair === null) continue;
    const key = pair[1] as string;
    const value = (pair[2] as string).trim();
    list_key = value === '' ? key : undefined;
    if (value.startsWith('[') && value.endsWith(']')) {
      fields[key] = value
        .slice(1, -1)
        .split(',')
        .map((entry) => unquote(entry.trim()))
        .filter((entry) => entry !== '');
    } else {
      fields[key] = unquote(value);
    }
  }
  return { fields, body: (match[2] ?? '').trim() };
}

function unquote(text: string): string {
  return text.replace(/^(['"])(.*)\1$/, '$2');
}

function tool_list(value: string | string[] | undefined, claude: boolean): string[] | undefined {
  if (value === undefined) return undefined;
  const names = (Array.isArray(value) ? value : value.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) return undefined;
  return [...new Set(names.map((name) => (claude ? (CLAUDE_TOOLS[name] ?? name) : name)))];
}

/**
 * Reads one subagent file: `name` (default the file name), `description`, `tools` (a list or
 * a comma-separated line; Claude Code's names mapped to Lich's for `.claude/agents`), `model`
 * (`inherit` or absent: the parent's), the body as the system prompt. Undefined for a file with
 * no body.
 */
export function parse_subagent(
  text: string,
  path: string,
  claude = false,
): SubagentType | undefined {
  const { fields, body } = read_front_matter(text);
  if (body === '') return undefined;
  const text_field = (key: string) => {
    const value = fields[key];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const model = text_field('model');
  const tools = tool_list(fields.tools, claude);
  return {
    name: text_field('name') ?? basename(path).replace(/\.md$/i, ''),
    description: text_field('description') ?? '',
    prompt: body,
    ...(tools === undefined ? {} : { tools }),
    ...(model === undefined || model === 'inherit' ? {} : { model }),
    path,
  };
}

async function read_folder(
  folder: string,
  claude: boolean,
  on_skip: (path: string, reason: string) => void,
) {
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => name.toLowerCase().endsWith('.md')).sort();
  } catch {
    return [];
  }
  const types: SubagentType[] = [];
  for (const name of names) {
    const path = join(folder, name);
    try {
      const parsed = parse_subagent(await readFile(path, 'utf8'), path, claude);
      if (parsed === undefined) on_skip(path, 'it has no instructions after its front matter');
      else types.push(parsed);
    } catch (error) {
      on_skip(path, error instanceof Error ? error.message : String(error));
    }
  }
  return types;
}

/**
 * The subagent types of a work dir: the built-in `general`, then `.lich/agents/*.md`, then (when
 * `import_claude` is set) `.claude/agents/*.md`; a later file of a name already taken is skipped.
 * Never rejects; an unreadable file is reported to `on_skip`.
 */
export async function find_subagent_types(
  work_dir: string,
  options: { import_claude?: boolean; on_skip?: (path: string, reason: string) => void } = {},
): Promise<SubagentType[]> {
  const on_skip = options.on_skip ?? (() => undefined);
  const found = [
    ...(await read_folder(join(work_dir, '.lich', 'agents'), false, on_skip)),
    ...(options.import_claude
      ? await read_folder(join(work_dir, '.claude', 'agents'), true, on_skip)
      : []),
  ];
  const types: SubagentType[] = [GENERAL_SUBAGENT];
  for (const type of found) {
    if (types.some((known) => known.name === type.name)) {
      on_skip(type.path ?? type.name, `a subagent named '${type.name}' is already defined`);
    } else {
      types.push(type);
    }
  }
  return types;
}
