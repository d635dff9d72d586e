import type { Agent, AgentConfig } from '@lich/agent';
import type { CommandContext } from './context.js';
import { resolve_folder_trust } from './folder_trust.js';
import { BASE_URL_WITHOUT_KEY_HINT, MODEL_ALONE_HINT, NO_PROVIDER_MESSAGE } from './no_provider.js';
import { version } from './version.js';

/**
 * Prints the "no provider" lines when the chain is empty; returns whether it did.
 * `model_named` says `--model`/`LICH_MODEL` was set, for a hint on naming the kind with it.
 */
export function report_no_provider(
  context: CommandContext,
  config: AgentConfig,
  model_named = false,
): boolean {
  if (config.providers.length > 0) return false;
  context.say(`${context.err.red('lich:')} ${NO_PROVIDER_MESSAGE[0]}`);
  const base_url_alone =
    (context.io.env.OPENAI_BASE_URL ?? '') !== '' && (context.io.env.OPENAI_API_KEY ?? '') === '';
  context.say(
    model_named
      ? MODEL_ALONE_HINT
      : base_url_alone
        ? BASE_URL_WITHOUT_KEY_HINT
        : (NO_PROVIDER_MESSAGE[1] as string),
  );
  return true;
}

/**
 * Builds the Agent for a command from loaded config: the CLI's version in sessions, warnings on
 * stderr; without the price catalog when `options.price_catalog` is false.
 */
export async function make_agent(
  context: CommandContext,
  config: AgentConfig,
  output: { quiet: boolean } = { quiet: false },
  trust_flag = false,
  options: { price_catalog?: boolean } = {},
): Promise<Agent> {
  const { Agent, missing_api_keys, session_dirs_file } = await import('@lich/agent');
  for (const warning of missing_api_keys(config.providers, context.io.env)) context.warn(warning);
  // asked (on a terminal, once per folder) before anything the folder ships may run
  const trusted = await resolve_folder_trust(context, config, trust_flag);
  const registry = session_dirs_file(context.io.env);
  return new Agent({
    config,
    env: context.io.env,
    trusted,
    // `lich usage --all` finds this folder's sessions through it
    ...(registry === null ? {} : { session_registry: registry }),
    lich_version: version(),
    // false when nothing reads the costs (`costs_read`): the catalog's import is saved
    ...(options.price_catalog === false ? { price_catalog: false } : {}),
    on_warning: (text) => context.warn(text),
    on_provider_event: (event) => {
      if (output.quiet) return;
      const line =
        event.type === 'provider_retry'
          ? `retry ${event.attempt} of ${event.max_retries} in ${event.delay_ms} ms: ${event.reason}`
          : `${event.reason}; trying ${event.to_provider} (${event.to_model})`;
      context.say(context.err.dim(line));
    },
  });
}
