import { join, resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { GatewayAdapter } from './adapter.js';
import type { GatewayLogEntry } from './gateway_bus.js';
import {
  GatewayConfigError,
  type PlatformSettings,
  read_platform_settings,
} from './gateway_config.js';
import { PairingStore } from './pairing_store.js';

/** The streams and environment of a platform command (the process's, or `lich`'s, or a test's). */
export interface PlatformCliIo {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** How the command is called in help and messages (default `lich-gateway-<platform>`). */
  program?: string;
}

type OptionTable = NonNullable<ParseArgsConfig['options']>;

/** One option of a platform, with its help line. */
export type PlatformOption = OptionTable[string] & { help: string; hint?: string };

/** What a platform's adapter factory gets. */
export interface AdapterInput {
  /** The platform options given on the command line (by name, without dashes). */
  flags: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
  /** The platform's keys of its `gateway.json` section (not the access and bus keys). */
  settings: Readonly<Record<string, unknown>>;
  env: Readonly<Record<string, string | undefined>>;
  /** `<state_dir>/<platform>`: where the adapter may keep files. */
  state_dir: string;
  log: (entry: GatewayLogEntry) => void;
}

/**
 * What a platform package tells `run_platform_cli`: its name, options, help, and how to make its
 * adapter. Every platform bin is `run_platform_cli(definition, process.argv.slice(2))`, and
 * `lich gateway <platform>` calls the package's `run_cli`, which is the same.
 */
export interface PlatformDefinition {
  /** `webhook`, `telegram`… */
  platform: string;
  /** The npm package (`@lich/gateway-webhook`), for messages. */
  package_name: string;
  /** One line: what the gateway is. */
  description: string;
  options: Readonly<Record<string, PlatformOption>>;
  /** More help: the platform's settings keys, environment variables, an example. */
  help: string;
  /**
   * Builds the adapter (no I/O that needs undoing: `start` listens). Throws `GatewayConfigError`
   * for a missing secret or a bad setting.
   */
  make_adapter(input: AdapterInput): Promise<GatewayAdapter> | GatewayAdapter;
}

const COMMON_OPTIONS = {
  'work-dir': { type: 'string', short: 'C' },
  config: { type: 'string' },
  'gateway-config': { type: 'string' },
  'state-dir': { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string', short: 'm' },
  'base-url': { type: 'string' },
  'allow-user': { type: 'string', multiple: true },
  'allow-group': { type: 'string', multiple: true },
  'allow-role': { type: 'string', multiple: true },
  'group-senders': { type: 'string' },
  'dm-policy': { type: 'string' },
  'allow-all': { type: 'boolean' },
  mode: { type: 'string' },
  'max-concurrency': { type: 'string' },
  store: { type: 'string' },
  trust: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionTable;

const COMMON_HELP = `Options:
  -C, --work-dir <dir>      the folder the agent works in (default: the current folder)
  --config <file>           the agent config (default <work-dir>/.lich/config.json)
  --gateway-config <file>   gateway settings (default <work-dir>/.lich/gateway.json)
  --state-dir <dir>         conversations and pairing (default <work-dir>/.lich/gateway)
  --provider <kind>, -m/--model <name>, --base-url <url>
                            the model, as for lich
  --allow-user <id>         a sender id allowed in direct messages (repeatable; "*": anyone)
  --allow-group <id>        a group or channel id the bot answers in (repeatable)
  --group-senders <who>     in those groups answer anyone (default) or only allowed senders
                            (the default on Twitch, whose channels anyone can join)
  --allow-role <role>       a sender role that counts as allowed (repeatable; Twitch:
                            broadcaster, moderator, vip)
  --dm-policy <policy>      pairing (default without --allow-user), allowlist, open, disabled
  --allow-all               let everyone in (prints a warning)
  --mode <mode>             a message arriving mid-run: queue (default), steer, collect
  --max-concurrency <n>     runs in flight at once (default 8)
  --store <url>             postgres://…: several nodes share one database (default: files in
                            the state folder; also LICH_DATABASE_URL or "store" in gateway.json)
  --trust                   trust the work dir for this run: its config file's plugins, MCP
                            servers and permission widenings, its hooks and command shell lines
                            act (else only when lich trust kept it trusted; nothing is asked)
  -h, --help                show this help`;

/** The help text of a platform command. */
export function platform_help(definition: PlatformDefinition, program: string): string {
  const lines = Object.entries(definition.options).map(([name, option]) => {
    const short = option.short === undefined ? '' : `-${option.short}, `;
    const left = `  ${short}--${name}${option.hint === undefined ? '' : ` ${option.hint}`}`;
    return left.length >= 28
      ? `${left}\n${' '.repeat(28)}${option.help}`
      : `${left.padEnd(28)}${option.help}`;
  });
  return [
    `${program} — ${definition.description}`,
    '',
    'Usage:',
    `  ${program} [options]          run the gateway (SIGINT/SIGTERM drain it, then it exits)`,
    `  ${program} pair <code>        let in the user a pairing code was given to`,
    `  ${program} pair               list the users waiting and those let in`,
    '',
    COMMON_HELP,
    ...(lines.length === 0 ? [] : ['', `${definition.platform} options:`, ...lines]),
    '',
    definition.help.trim(),
    '',
    'Exit codes: 0 stopped cleanly, 1 failure, 2 usage or config error.',
  ].join('\n');
}

class UsageError extends Error {}

/** The common flags, applied over the settings file (flags win). */
function apply_flags(settings: PlatformSettings, values: Record<string, unknown>): void {
  const users = values['allow-user'] as string[] | undefined;
  const groups = values['allow-group'] as string[] | undefined;
  if (users !== undefined) settings.access.allow_users = users;
  if (groups !== undefined) settings.access.allow_groups = groups;
  const roles = values['allow-role'] as string[] | undefined;
  if (roles !== undefined) settings.access.allow_roles = roles;
  const senders = values['group-senders'];
  if (senders !== undefined) {
    if (senders !== 'anyone' && senders !== 'allowed') {
      throw new UsageError('--group-senders must be anyone or allowed');
    }
    settings.access.group_senders = senders;
  }
  const dm = values['dm-policy'];
  if (dm !== undefined) {
    if (!['pairing', 'allowlist', 'open', 'disabled'].includes(String(dm))) {
      throw new UsageError(`--dm-policy must be pairing, allowlist, open or disabled`);
    }
    settings.access.dm_policy = dm as PlatformSettings['access']['dm_policy'];
  }
  if (values['allow-all'] === true) settings.access.allow_all = true;
  const mode = values.mode;
  if (mode !== undefined) {
    if (!['queue', 'steer', 'collect'].includes(String(mode))) {
      throw new UsageError('--mode must be queue, steer or collect');
    }
    settings.bus.mode = mode as PlatformSettings['bus']['mode'];
  }
  const concurrency = values['max-concurrency'];
  if (concurrency !== undefined) {
    const value = Number(concurrency);
    if (!Number.isInteger(value) || value < 1) {
      throw new UsageError('--max-concurrency must be a whole number of at least 1');
    }
    settings.bus.max_concurrency = value;
  }
  const store = values.store;
  if (store !== undefined) {
    if (!/^postgres(?:ql)?:\/\//i.test(String(store))) {
      throw new UsageError('--store must be a postgres:// URL');
    }
    settings.bus.store = String(store);
  }
}

async function pair(
  definition: Pick<PlatformDefinition, 'platform'>,
  store: PairingStore,
  code: string | undefined,
  io: PlatformCliIo,
): Promise<number> {
  if (code === undefined) {
    const pending = await store.pending(definition.platform);
    const approved = await store.approved_users(definition.platform);
    io.stdout.write(`waiting (${pending.length}):\n`);
    for (const item of pending) {
      const minutes = Math.max(0, Math.round((item.expires_at - Date.now()) / 60_000));
      io.stdout.write(`  ${item.user_id}  ${item.user_name}  (expires in ${minutes} min)\n`);
    }
    io.stdout.write(`let in (${approved.length}):\n`);
    for (const user of approved) {
      io.stdout.write(`  ${user.user_id}${user.user_name === '' ? '' : `  ${user.user_name}`}\n`);
    }
    return 0;
  }
  const result = await store.approve(definition.platform, code);
  if (result.ok) {
    const name = result.user_name === '' ? '' : ` (${result.user_name})`;
    io.stdout.write(`let in ${result.user_id}${name} on ${definition.platform}\n`);
    return 0;
  }
  if (result.reason === 'locked_out') {
    io.stderr.write(
      `${definition.platform}: pairing is locked for an hour after ${store.limits.max_failures} failed approvals\n`,
    );
  } else {
    const left = store.limits.max_failures - result.failures;
    io.stderr.write(
      `no waiting pairing request has that code (it may have expired); ${left} more failure(s) lock pairing for an hour\n`,
    );
  }
  return 1;
}

/**
 * Runs a platform's gateway command: `[options]` runs the gateway until SIGINT/SIGTERM; `pair
 * <code>` approves a pairing code; `pair` lists requests. Resolves with the exit code (0 stopped
 * cleanly or done, 1 failure, 2 usage or config error); never rejects.
 */
export async function run_platform_cli(
  definition: PlatformDefinition,
  argv: readonly string[],
  io_given: Partial<PlatformCliIo> = {},
): Promise<number> {
  const io: PlatformCliIo = {
    env: io_given.env ?? process.env,
    cwd: io_given.cwd ?? process.cwd(),
    stdout: io_given.stdout ?? process.stdout,
    stderr: io_given.stderr ?? process.stderr,
    program: io_given.program ?? `lich-gateway-${definition.platform}`,
  };
  const program = io.program ?? definition.platform;
  const fail = (text: string, code: number) => {
    io.stderr.write(`${program}: ${text}\n`);
    return code;
  };
  let values: Record<string, unknown>;
  let positionals: string[];
  try {
    const platform_options = Object.fromEntries(
      Object.entries(definition.options).map(([name, { help: _help, hint: _hint, ...option }]) => [
        name,
        option,
      ]),
    ) as OptionTable;
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options: { ...COMMON_OPTIONS, ...platform_options },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : error} (see --help)`, 2);
  }
  if (values.help === true) {
    io.stdout.write(`${platform_help(definition, program)}\n`);
    return 0;
  }
  const work_dir = resolve(io.cwd, String(values['work-dir'] ?? '.'));
  const state_dir = resolve(work_dir, String(values['state-dir'] ?? join('.lich', 'gateway')));
  const pairing = new PairingStore({ dir: join(state_dir, 'pairing') });
  if (positionals[0] === 'pair') {
    if (positionals.length > 2) return fail('pair takes one code', 2);
    try {
      return await pair(definition, pairing, positionals[1], io);
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error), 1);
    }
  }
  if (positionals.length > 0)
    return fail(`unexpected argument '${positionals[0]}' (see --help)`, 2);
  try {
    const settings_path = resolve(
      work_dir,
      String(values['gateway-config'] ?? join('.lich', 'gateway.json')),
    );
    const settings = await read_platform_settings(settings_path, definition.platform);
    apply_flags(settings, values);
    const { serve_platform } = await import('./serve_platform.js');
    return await serve_platform({ definition, values, io, work_dir, state_dir, pairing, settings });
  } catch (error) {
    if (error instanceof UsageError || error instanceof GatewayConfigError)
      return fail(error.message, 2);
    if (error instanceof Error && error.name === 'AccessPolicyError') return fail(error.message, 2);
    return fail(error instanceof Error ? error.message : String(error), 1);
  }
}

/**
 * `pair [<code>]` for any platform, without its package: the pairing store is the same for every
 * platform, under `<work dir>/.lich/gateway/pairing` (or `state_dir`). Lets in the user a code
 * was given to, or lists who waits and who was let in. Resolves with the exit code.
 */
export async function run_pairing(
  platform: string,
  code: string | undefined,
  options: { work_dir: string; state_dir?: string; io: PlatformCliIo },
): Promise<number> {
  const state_dir = resolve(options.work_dir, options.state_dir ?? join('.lich', 'gateway'));
  const store = new PairingStore({ dir: join(state_dir, 'pairing') });
  try {
    return await pair({ platform }, store, code, options.io);
  } catch (error) {
    options.io.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/**
 * What a platform package's bin does: `run_platform_cli` with the process's arguments, then the
 * exit. Contract: exits with the command's code (and at the latest 2 s later, so a handle a
 * platform library left open cannot keep the process alive); an unexpected throw is printed with
 * its stack and exits 1.
 */
export function run_platform_bin(definition: PlatformDefinition): void {
  run_platform_cli(definition, process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
      // everything is closed by now; a handle left open by a library must not keep the process
      setTimeout(() => process.exit(code), 2_000).unref();
    },
    (error: unknown) => {
      const text = error instanceof Error ? error.stack : String(error);
      process.stderr.write(`lich-gateway-${definition.platform}: ${text}\n`);
      process.exit(1);
    },
  );
}
