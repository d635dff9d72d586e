import { CONFIG_OPTIONS, parse_command_args } from '../args.js';
import { load_cli_config } from '../cli_config.js';
import type { Command } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { UsageError } from '../usage_error.js';

/** What `terminal` and `run_tests` commands will do here, in a few words. */
function verdict(mode: string, sandboxed: boolean, kind: string | undefined): string {
  if (mode === 'off') return 'run without a sandbox (sandbox.mode is off)';
  if (sandboxed) return `run sandboxed (${kind})`;
  if (mode === 'required')
    return "are refused (sandbox.mode is 'required' and no sandbox can start)";
  return 'run without a sandbox, with one warning per session (sandbox.mode is auto)';
}

function describe_network(network: boolean | readonly string[]): string {
  if (network === true) return 'on';
  if (network === false) return 'off';
  return `only ${network.join(', ')}`;
}

/**
 * `lich sandbox check`: what confines commands on this machine and why (each probe step), the
 * folder's sandbox config, and what commands will therefore do. `--json` prints the same as one
 * document. Exit code 0 when a sandbox runs here, 1 when none can.
 */
export const command_sandbox: Command = async (context) => {
  const { values, positionals } = parse_command_args('sandbox', context.argv, {
    ...CONFIG_OPTIONS,
    json: { type: 'boolean' },
  });
  if (values.help) {
    context.io.stdout.write(`${help_text('sandbox')}\n`);
    return EXIT.OK;
  }
  const [subcommand, ...rest] = positionals;
  if (subcommand !== 'check' || rest.length > 0) {
    throw new UsageError(
      subcommand === undefined
        ? 'sandbox needs a subcommand: check'
        : `unknown subcommand '${subcommand}'`,
      'sandbox',
    );
  }
  const loaded = await load_cli_config(context, 'sandbox', values);
  if (loaded === null) return EXIT.USAGE;
  const { probe_sandbox, process_limit_kind, unix_socket_filter, deny_read_paths } = await import(
    '@lich/tools'
  );
  const support = await probe_sandbox({ env: context.io.env });
  const { sandbox } = loaded.config;
  const masked = deny_read_paths(sandbox, loaded.config.work_dir).map((entry) => entry.entry);
  const protections = {
    unix_sockets:
      sandbox.allow_unix_sockets.length > 0
        ? `only ${sandbox.allow_unix_sockets.join(', ')} (every other bound socket masked)`
        : support.kind === 'bwrap' && unix_socket_filter() === undefined
          ? `none (every bound socket masked: no seccomp filter for ${process.arch})`
          : 'none (seccomp filter)',
    masked,
    max_processes: sandbox.max_processes,
    process_limit: sandbox.max_processes === 0 ? 'none' : process_limit_kind(),
    env_passthrough: sandbox.env_passthrough,
  };
  const sandboxed = support.kind !== undefined && sandbox.mode !== 'off';
  const commands = verdict(sandbox.mode, support.kind !== undefined, support.kind);
  if (values.json) {
    const document = {
      supported: support.kind !== undefined,
      kind: support.kind ?? null,
      program: support.program ?? null,
      version: support.version ?? null,
      reason: support.reason,
      checks: support.checks,
      config: sandbox,
      protections,
      sandboxed,
      commands,
    };
    context.io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    return support.kind === undefined ? EXIT.FAILURE : EXIT.OK;
  }
  const { out } = context;
  const lines = [
    `${support.kind === undefined ? out.red('no sandbox') : out.green(support.kind)}: ${support.reason}`,
    ...support.checks.map(
      (check) => `  ${check.ok ? out.green('✓') : out.red('✗')} ${check.name}: ${check.detail}`,
    ),
    `config: mode ${sandbox.mode}, network ${describe_network(sandbox.network)}, writable ${
      sandbox.writable.length === 0 ? '(work dir and temp dir only)' : sandbox.writable.join(', ')
    }`,
    `unix sockets: ${protections.unix_sockets}`,
    `masked (credentials): ${masked.length === 0 ? '(none found)' : masked.join(', ')}`,
    `process limit: ${
      sandbox.max_processes === 0
        ? 'none'
        : `${sandbox.max_processes} (${protections.process_limit === 'cgroup' ? 'pids cgroup' : 'RLIMIT_NPROC'})`
    }`,
    `environment: the base set${
      sandbox.env_passthrough.length === 0 ? '' : ` and ${sandbox.env_passthrough.join(', ')}`
    } (sandbox.env_passthrough adds names)`,
    `terminal and run_tests commands ${commands}`,
  ];
  context.io.stdout.write(`${lines.join('\n')}\n`);
  return support.kind === undefined ? EXIT.FAILURE : EXIT.OK;
};
