import { resolve } from 'node:path';
import {
  CONFIG_OPTIONS,
  type ParsedValues,
  PROVIDER_OPTIONS,
  parse_command_args,
  string_option,
} from '../args.js';
import { load_cli_config } from '../cli_config.js';
import type { Command, CommandContext } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { UsageError } from '../usage_error.js';

function get_path(root: unknown, key_path: string): { found: boolean; value: unknown } {
  let node = root;
  for (const key of key_path.split('.').filter((part) => part !== '')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) {
      return { found: false, value: undefined };
    }
    node = (node as Record<string, unknown>)[key];
  }
  return { found: true, value: node };
}

function one_line(value: unknown, width: number): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value);
  if (text === undefined) return '(unset)';
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

async function print_effective(context: CommandContext, values: ParsedValues): Promise<number> {
  const loaded = await load_cli_config(context, 'config', values, {
    detect_providers: true,
    agent_flags: true,
  });
  if (loaded === null) return EXIT.USAGE;
  const { redact_config } = await import('@lich/agent');
  const shown = redact_config(loaded.config) as Record<string, unknown>;
  // what waits for trust is listed under trust (`adds`), not as a config key
  delete shown.held_until_trusted;
  const { folder_trust, repository_runnables } = await import('@lich/agent');
  const trust = await folder_trust(loaded.config.work_dir, context.io.env);
  const adds = await repository_runnables(loaded.config, context.io.env);
  if (values.json) {
    context.io.stdout.write(
      `${JSON.stringify({ config: shown, sources: loaded.sources, files: loaded.files, trust: { ...trust, adds } }, null, 2)}\n`,
    );
    return EXIT.OK;
  }
  const { CONFIG_KEYS } = await import('@lich/agent');
  const keys = ['work_dir', ...CONFIG_KEYS];
  const width = Math.max(...keys.map((key) => key.length));
  for (const key of keys) {
    const source = loaded.sources[key]?.detail ?? 'default';
    const value =
      key === 'tools_enabled' && shown[key] === undefined
        ? 'all builtins'
        : one_line(shown[key], 72);
    context.io.stdout.write(`${key.padEnd(width)}  ${value}  ${context.out.dim(`(${source})`)}\n`);
  }
  // what the repository ships that acts on its own, and whether it may
  const state =
    trust.state === 'trusted'
      ? `trusted (${trust.folder})`
      : trust.state === 'untrusted'
        ? `not trusted (${trust.folder})`
        : 'not trusted (never asked; lich trust)';
  context.io.stdout.write(`${'trust'.padEnd(width)}  ${state}\n`);
  for (const line of adds) {
    const verb = trust.state === 'trusted' ? 'runs' : 'held back';
    context.io.stdout.write(`${''.padEnd(width)}  ${context.out.dim(`${verb}:`)} ${line}\n`);
  }
  const agent = await import('@lich/agent');
  const { config } = loaded;
  const preview = agent.system_prompt_preview(
    config,
    { is_default: config.system_prompt === agent.DEFAULT_SYSTEM_PROMPT },
    agent.prompt_environment({ work_dir: config.work_dir }),
  );
  context.io.stdout.write(
    `${context.out.dim(`the system prompt: ~${preview.tokens} tokens before AGENTS.md (the terminal's)`)}\n`,
  );
  if (loaded.config.providers.length === 0) {
    context.say(
      context.err.yellow(
        'no provider: set OPENAI_API_KEY or ANTHROPIC_API_KEY, start Ollama, or add providers',
      ),
    );
  }
  return EXIT.OK;
}

/**
 * `lich config`: the effective config with the source of each value (secrets redacted);
 * `get <key>`, `set <key> <value>` (validated before writing), `unset <key>`.
 */
export const command_config: Command = async (context) => {
  const { values, positionals } = parse_command_args('config', context.argv, {
    ...CONFIG_OPTIONS,
    ...PROVIDER_OPTIONS,
    global: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    context.io.stdout.write(`${help_text('config')}\n`);
    return EXIT.OK;
  }
  const [subcommand, key, ...rest] = positionals;
  if (subcommand === undefined) return print_effective(context, values);
  if (subcommand === 'get') {
    if (key === undefined || rest.length > 0)
      throw new UsageError('config get takes one key', 'config');
    const loaded = await load_cli_config(context, 'config', values, {
      detect_providers: true,
      agent_flags: true,
    });
    if (loaded === null) return EXIT.USAGE;
    const agent = await import('@lich/agent');
    const shown = agent.redact_config(loaded.config) as Record<string, unknown>;
    delete shown.held_until_trusted;
    // An absent tools_enabled allows every builtin: show that list rather than nothing.
    if (shown.tools_enabled === undefined) shown.tools_enabled = agent.builtin_tool_names();
    const { found, value } = get_path(shown, key);
    if (!found) {
      const top = key.split('.')[0] as string;
      if (['work_dir', ...agent.CONFIG_KEYS].includes(top)) {
        context.say(`${context.err.red('lich:')} '${key}' is not set`);
        return EXIT.FAILURE;
      }
      throw new UsageError(`unknown key '${key}'`, 'config', {
        word: key,
        candidates: ['work_dir', ...agent.CONFIG_KEYS],
      });
    }
    const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    context.io.stdout.write(`${text ?? ''}\n`);
    return EXIT.OK;
  }
  if (subcommand === 'set' || subcommand === 'unset') {
    const wanted = subcommand === 'set' ? 2 : 1;
    const given = [key, ...rest].filter((part) => part !== undefined);
    if (given.length !== wanted) {
      throw new UsageError(
        subcommand === 'set' ? 'config set takes a key and a value' : 'config unset takes a key',
        'config',
      );
    }
    const agent = await import('@lich/agent');
    const work_dir = resolve(context.io.cwd, string_option(values['work-dir']) ?? '.');
    const config_file = string_option(values.config);
    const path = values.global
      ? agent.user_config_path(context.io.env)
      : config_file
        ? resolve(context.io.cwd, config_file)
        : agent.project_config_path(work_dir);
    const value = subcommand === 'set' ? agent.parse_cli_value(rest[0] as string) : undefined;
    const result = await agent.set_config_value(path, key as string, value);
    if (!result.ok) {
      context.say(`${context.err.red('lich:')} ${result.error.message}`);
      return EXIT.USAGE;
    }
    for (const warning of result.warnings) context.warn(warning);
    if (!result.changed) {
      context.say(`${key} is not set in ${path}; nothing changed`);
      return EXIT.OK;
    }
    context.say(
      subcommand === 'set'
        ? `set ${key} = ${JSON.stringify(value)} in ${path}`
        : `removed ${key} from ${path}`,
    );
    return EXIT.OK;
  }
  throw new UsageError(`unknown subcommand 'config ${subcommand}'`, 'config', {
    word: subcommand,
    candidates: ['get', 'set', 'unset'],
  });
};
