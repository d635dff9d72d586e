import type { ConfigFlags, LoadedConfig } from '@lich/agent';
import {
  dollars_option,
  integer_option,
  list_option,
  type ParsedValues,
  string_option,
} from './args.js';
import type { CommandContext } from './context.js';

/** How a command wants its config loaded. */
export interface CliConfigOptions {
  /** Look for providers in the environment (and probe Ollama) when none is configured. */
  detect_providers?: boolean;
  /**
   * Read --provider, --model, --base-url, --max-turns, the system prompt and the tool lists from
   * `values`.
   */
  agent_flags?: boolean;
}

/**
 * Loads the effective config for a command from `-C/--work-dir`, `--config` and (for the agent
 * commands) the provider flags. Prints the warnings (unknown keys) on stderr. Resolves with
 * `null` after printing a config error (the caller exits with 2).
 */
export async function load_cli_config(
  context: CommandContext,
  command: string,
  values: ParsedValues,
  options: CliConfigOptions = {},
): Promise<LoadedConfig | null> {
  const { BUILT_IN_KIND_NAMES, load_config } = await import('@lich/agent');
  const flags: ConfigFlags = {};
  if (options.agent_flags) {
    const provider = string_option(values.provider);
    const model = string_option(values.model);
    const base_url = string_option(values['base-url']);
    const max_turns = integer_option(command, 'max-turns', values['max-turns']);
    if (provider !== undefined) flags.provider = provider;
    if (model !== undefined) flags.model = model;
    if (base_url !== undefined) flags.base_url = base_url;
    if (max_turns !== undefined) flags.max_turns = max_turns;
    const budget = dollars_option(command, 'max-budget-usd', values['max-budget-usd']);
    if (budget !== undefined) flags.max_budget_usd = budget;
    const system_prompt = string_option(values['system-prompt']);
    const append = string_option(values['append-system-prompt']);
    const allowed = list_option(values['allowed-tools']);
    const disallowed = list_option(values['disallowed-tools']);
    if (system_prompt !== undefined) flags.system_prompt = system_prompt;
    if (append !== undefined) flags.append_system_prompt = append;
    if (allowed !== undefined) flags.tools_enabled = allowed;
    if (disallowed !== undefined) flags.tools_disabled = disallowed;
  }
  const work_dir = string_option(values['work-dir']);
  const config_path = string_option(values.config);
  const { resolve } = await import('node:path');
  const result = await load_config({
    work_dir: resolve(context.io.cwd, work_dir ?? '.'),
    work_dir_source:
      work_dir === undefined
        ? { layer: 'default', detail: 'current folder' }
        : { layer: 'flag', detail: 'flag --work-dir' },
    ...(config_path === undefined ? {} : { config_path: resolve(context.io.cwd, config_path) }),
    env: context.io.env,
    flags,
    detect_providers: options.detect_providers ?? false,
    known_kinds: BUILT_IN_KIND_NAMES,
  });
  for (const warning of result.warnings) context.warn(warning);
  if (!result.ok) {
    context.say(`${context.err.red('lich:')} ${result.error.message}`);
    return null;
  }
  return result;
}

/** Whether a model was named by `--model` or `LICH_MODEL` (for the "no provider" hint). */
export function model_given(context: CommandContext, values: ParsedValues): boolean {
  return string_option(values.model) !== undefined || Boolean(context.io.env.LICH_MODEL);
}
