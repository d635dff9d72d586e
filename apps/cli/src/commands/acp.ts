import type { HostSetup } from '@lich/acp';
import type { AgentConfig, ApprovalMode, McpServersConfig } from '@lich/agent';
import {
  CONFIG_OPTIONS,
  type ParsedValues,
  PROVIDER_OPTIONS,
  parse_command_args,
} from '../args.js';
import { load_cli_config } from '../cli_config.js';
import type { Command, CommandContext } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { NO_PROVIDER_MESSAGE } from '../no_provider.js';
import { version } from '../version.js';

const ACP_OPTIONS = {
  ...CONFIG_OPTIONS,
  ...PROVIDER_OPTIONS,
  'approval-mode': { type: 'string' },
  yolo: { type: 'boolean' },
  'client-terminal': { type: 'boolean' },
  trust: { type: 'boolean' },
} as const;

const MODES: readonly ApprovalMode[] = ['default', 'auto_edit', 'plan', 'yolo'];

/** The approval mode of new sessions from `--yolo` / `--approval-mode`; absent: the config's. */
async function approval_flag(values: ParsedValues): Promise<ApprovalMode | undefined> {
  const flag = values['approval-mode'];
  const { UsageError } = await import('../usage_error.js');
  if (flag !== undefined && (typeof flag !== 'string' || !MODES.includes(flag as ApprovalMode))) {
    throw new UsageError(
      `--approval-mode must be one of ${MODES.join(', ')}, got '${String(flag)}'`,
      'acp',
    );
  }
  if (values.yolo === true && flag !== undefined && flag !== 'yolo') {
    throw new UsageError(`--yolo and --approval-mode ${String(flag)} contradict each other`, 'acp');
  }
  return values.yolo === true ? 'yolo' : (flag as ApprovalMode | undefined);
}

/** The config of `work_dir` with the client's MCP servers added (theirs win on a name). */
async function with_client_servers(
  config: AgentConfig,
  servers: HostSetup['mcp_servers'],
): Promise<AgentConfig> {
  if (Object.keys(servers).length === 0) return config;
  const { deep_freeze } = await import('@lich/agent');
  const mcp_servers = { ...config.mcp_servers, ...servers } as McpServersConfig;
  const held = config.held_until_trusted;
  if (held === undefined) return deep_freeze({ ...config, mcp_servers });
  // the editor's servers are the person's: none of them waits for the folder's trust
  const held_servers = Object.fromEntries(
    Object.entries(held.mcp_servers).filter(([name]) => !(name in servers)),
  );
  return deep_freeze({
    ...config,
    mcp_servers,
    held_until_trusted: { ...held, mcp_servers: held_servers },
  });
}

/** Builds the SessionHost of one (folder, MCP servers) pair: that folder's config, as `lich`. */
function host_factory(
  context: CommandContext,
  values: ParsedValues,
  approval_mode: ApprovalMode | undefined,
) {
  return async (setup: HostSetup) => {
    const loaded = await load_cli_config(
      context,
      'acp',
      { ...values, 'work-dir': setup.work_dir },
      { detect_providers: true, agent_flags: true },
    );
    if (loaded === null)
      throw new Error(`the config of ${setup.work_dir} cannot be used (see stderr)`);
    if (loaded.config.providers.length === 0) throw new Error(NO_PROVIDER_MESSAGE.join(' '));
    const config = await with_client_servers(loaded.config, setup.mcp_servers);
    const { Agent, create_session_host, missing_api_keys } = await import('@lich/agent');
    for (const warning of missing_api_keys(config.providers, context.io.env)) context.warn(warning);
    const { resolve_folder_trust } = await import('../folder_trust.js');
    const agent = new Agent({
      config,
      env: context.io.env,
      trusted: await resolve_folder_trust(context, config, values.trust === true),
      tools: setup.tools,
      lich_version: version(),
      surface: 'editor',
      on_warning: (text) => context.warn(text),
    });
    return create_session_host({
      agent,
      ...(approval_mode === undefined ? {} : { approval_mode }),
      lich_version: version(),
      on_warning: (text) => context.warn(text),
    });
  };
}

/**
 * `lich acp`: Lich as an Agent Client Protocol agent on stdin/stdout for editors. Runs until the
 * client closes stdin (or SIGINT/SIGTERM), then shuts every session down. stdout carries ACP
 * only; warnings and logs go to stderr.
 */
export const command_acp: Command = async (context) => {
  const { values, positionals } = parse_command_args('acp', context.argv, ACP_OPTIONS);
  if (values.help) {
    context.io.stdout.write(`${help_text('acp')}\n`);
    return EXIT.OK;
  }
  if (positionals.length > 0) {
    const { UsageError } = await import('../usage_error.js');
    throw new UsageError(`lich acp takes no arguments, got '${positionals[0]}'`, 'acp');
  }
  const approval_mode = await approval_flag(values);
  const { resolve } = await import('node:path');
  const default_work_dir = resolve(
    context.io.cwd,
    typeof values['work-dir'] === 'string' ? values['work-dir'] : '.',
  );
  const { serve_acp_stdio } = await import('@lich/acp');
  const server = serve_acp_stdio({
    stdin: context.io.stdin,
    stdout: context.io.stdout,
    default_work_dir,
    version: version(),
    client_terminal: values['client-terminal'] === true,
    host_factory: host_factory(context, values, approval_mode),
    on_log: (text) => context.say(`lich acp: ${text}`),
  });
  let signalled: number | undefined;
  const stop = (code: number) => () => {
    signalled = code;
    server.close();
  };
  const on_int = stop(EXIT.ABORTED);
  const on_term = stop(EXIT.ABORTED);
  process.once('SIGINT', on_int);
  process.once('SIGTERM', on_term);
  try {
    await server.done;
  } finally {
    process.off('SIGINT', on_int);
    process.off('SIGTERM', on_term);
  }
  return signalled ?? EXIT.OK;
};
