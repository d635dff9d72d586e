import { existsSync } from 'node:fs';
import { access, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { CONFIG_OPTIONS, parse_command_args, string_option } from '../args.js';
import type { Command } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { version } from '../version.js';

/**
 * What `lich init` adds to `.gitignore`: every file Lich keeps for itself (sessions, the TUI's
 * input history, checkpoints, blobs…), while what a team shares stays committed: the config and
 * the skills, commands and agents folders.
 */
const LOCAL_STATE_BLOCK = [
  "# Lich's own state: sessions, input history, checkpoints (the config and shared folders stay)",
  '.lich/*',
  '!.lich/config.json',
  '!.lich/skills/',
  '!.lich/commands/',
  '!.lich/agents/',
];

/** Whether a .gitignore already keeps Lich's state out (all of `.lich/`, or the block above). */
function ignores_state(text: string): boolean {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/^\//, '').replace(/\/$/, ''))
    .some((line) => line === '.lich' || line === '.lich/*' || line === '.lich/**');
}

/** Where the schema of a Lich version is published: npm's files, as unpkg serves them. */
export function published_schema_url(lich_version: string): string {
  return `https://unpkg.com/@lich/agent@${lich_version}/config.schema.json`;
}

/**
 * `$schema`, never a path of this machine (the file is meant to be committed): relative to the
 * config file when the schema lives inside the work dir (a checkout of Lich, or `@lich/agent` in
 * the project's node_modules), else the published schema of this version. The config loader
 * ignores `$schema`; it is for editors.
 */
function schema_reference(schema_path: string, config_path: string, work_dir: string): string {
  const local = [
    schema_path,
    join(work_dir, 'node_modules', '@lich', 'agent', 'config.schema.json'),
  ];
  for (const candidate of local) {
    const inside = !relative(work_dir, candidate).startsWith('..');
    if (inside && existsSync(candidate)) {
      return relative(dirname(config_path), candidate).split(sep).join('/');
    }
  }
  return published_schema_url(version());
}

/**
 * `lich init`: writes `<work_dir>/.lich/config.json` with `$schema` and keeps Lich's own state out
 * of git (`LOCAL_STATE_BLOCK` in the work dir's `.gitignore`). An existing config is kept unless `--force`.
 */
export const command_init: Command = async (context) => {
  const { values, positionals } = parse_command_args('init', context.argv, {
    ...CONFIG_OPTIONS,
    force: { type: 'boolean' },
  });
  if (values.help) {
    context.io.stdout.write(`${help_text('init')}\n`);
    return EXIT.OK;
  }
  if (positionals.length > 0) {
    const { UsageError } = await import('../usage_error.js');
    throw new UsageError(`init takes no arguments, got '${positionals.join(' ')}'`, 'init');
  }
  const work_dir = resolve(context.io.cwd, string_option(values['work-dir']) ?? '.');
  const { config_schema_path, ConfigError, project_config_path, write_config_file } = await import(
    '@lich/agent'
  );
  try {
    await access(work_dir);
  } catch {
    context.say(
      `${context.err.red('lich:')} ${new ConfigError(`work dir ${work_dir} does not exist`).message}`,
    );
    return EXIT.USAGE;
  }
  const config_path = project_config_path(work_dir);
  let exists = true;
  try {
    await access(config_path);
  } catch {
    exists = false;
  }
  if (exists && !values.force) {
    context.say(`${config_path} exists; left as it is (--force overwrites it)`);
  } else {
    await write_config_file(config_path, {
      $schema: schema_reference(config_schema_path(), config_path, work_dir),
      providers: [],
      max_turns: 50,
      mcp_servers: {},
    });
    context.say(`wrote ${config_path}`);
    context.say(
      context.err.dim(
        'providers: [] means the environment decides (OPENAI_API_KEY, ANTHROPIC_API_KEY, Ollama); see lich config',
      ),
    );
  }
  const gitignore = join(work_dir, '.gitignore');
  let text = '';
  try {
    text = await readFile(gitignore, 'utf8');
  } catch {
    // no .gitignore yet: one is created
  }
  if (!ignores_state(text)) {
    const separator = text === '' || text.endsWith('\n') ? '' : '\n';
    await writeFile(gitignore, `${text}${separator}${LOCAL_STATE_BLOCK.join('\n')}\n`);
    context.say(`added .lich/* (all but the config and shared folders) to ${gitignore}`);
  }
  return EXIT.OK;
};
