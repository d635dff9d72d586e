import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { compare_text } from '@lich/core';
import { project_folders } from '../project_folders.js';
import { parse_front_matter, string_list } from '../skills/front_matter.js';
import type { CustomCommand, CustomCommandCatalog } from './custom_command_types.js';
import { parse_toml_command } from './toml_command.js';

/** A custom command's name: lowercase words, `:` between namespaces. */
export const CUSTOM_COMMAND_NAME = /^[a-z][a-z0-9_-]*(?::[a-z0-9][a-z0-9_-]*)*$/;

/** The largest command file read, in bytes. */
const COMMAND_FILE_MAX_BYTES = 128 * 1024;

interface CommandRoot {
  dir: string;
  dialect: 'markdown' | 'toml';
  origin: 'project' | 'user';
}

async function files_under(dir: string, extension: string, out: string[] = []): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries.sort((a, b) => compare_text(a.name, b.name))) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await files_under(path, extension, out);
    else if (entry.name.endsWith(extension)) out.push(path);
  }
  return out;
}

function text_field(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

async function read_command(
  root: CommandRoot,
  path: string,
): Promise<{ command: CustomCommand } | { warning: string }> {
  const extension = root.dialect === 'markdown' ? '.md' : '.toml';
  const name = relative(root.dir, path)
    .slice(0, -extension.length)
    .split(sep)
    .join(':')
    .toLowerCase();
  if (!CUSTOM_COMMAND_NAME.test(name)) {
    return {
      warning: `command ${path} was skipped: '/${name}' is not a command name (a-z, 0-9, _ and -)`,
    };
  }
  try {
    const info = await stat(path);
    if (info.size > COMMAND_FILE_MAX_BYTES) {
      return { warning: `command ${path} was skipped: it is ${info.size} bytes` };
    }
    const text = await readFile(path, 'utf8');
    if (root.dialect === 'toml') {
      const parsed = parse_toml_command(text);
      return {
        command: {
          name,
          description: parsed.description ?? first_line(parsed.prompt),
          dialect: 'toml',
          template: parsed.prompt,
          path,
          origin: root.origin,
        },
      };
    }
    const { data, body } = parse_front_matter(text);
    const allowed_tools = string_list(data['allowed-tools']);
    const argument_hint = text_field(data['argument-hint']);
    const model = text_field(data.model);
    return {
      command: {
        name,
        description: text_field(data.description) ?? first_line(body),
        ...(argument_hint === undefined ? {} : { argument_hint }),
        ...(allowed_tools === undefined ? {} : { allowed_tools }),
        ...(model === undefined ? {} : { model }),
        dialect: 'markdown',
        template: body.trim(),
        path,
        origin: root.origin,
      },
    };
  } catch (error) {
    return {
      warning: `command ${path} was skipped: ${error instanceof Error ? error.message : error}`,
    };
  }
}

function first_line(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  const plain = line.replace(/^#+\s*/, '').trim();
  return plain.length > 80 ? `${plain.slice(0, 79)}…` : plain || 'a custom command';
}

/**
 * Finds the custom commands: markdown files under `.lich/commands/` and `.claude/commands/`, and
 * Gemini CLI's TOML files under `.gemini/commands/`, of the work dir and each parent up to the
 * repository root (nearest first), then `<config_dir>/commands/` (markdown). A subfolder is a
 * namespace (`frontend/component.md` is `/frontend:component`). The first command of a name wins;
 * a later one is named in a warning. Never throws: a malformed file is a warning naming it.
 */
export async function find_custom_commands(options: {
  work_dir: string;
  config_dir: string;
}): Promise<CustomCommandCatalog> {
  const roots: CommandRoot[] = [];
  for (const folder of await project_folders(options.work_dir)) {
    roots.push({ dir: join(folder, '.lich', 'commands'), dialect: 'markdown', origin: 'project' });
    roots.push({
      dir: join(folder, '.claude', 'commands'),
      dialect: 'markdown',
      origin: 'project',
    });
    roots.push({ dir: join(folder, '.gemini', 'commands'), dialect: 'toml', origin: 'project' });
  }
  roots.push({ dir: join(options.config_dir, 'commands'), dialect: 'markdown', origin: 'user' });
  const found = new Map<string, CustomCommand>();
  const warnings: string[] = [];
  for (const root of roots) {
    for (const path of await files_under(root.dir, root.dialect === 'markdown' ? '.md' : '.toml')) {
      const read = await read_command(root, path);
      if ('warning' in read) {
        warnings.push(read.warning);
        continue;
      }
      const earlier = found.get(read.command.name);
      if (earlier !== undefined) {
        warnings.push(
          `command ${path} is hidden by ${earlier.path}, of the same name /${read.command.name}`,
        );
        continue;
      }
      found.set(read.command.name, read.command);
    }
  }
  return { commands: [...found.values()], warnings };
}
