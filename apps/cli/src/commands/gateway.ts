import { first_word_index } from '../command_words.js';
import type { Command, CommandContext } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { UsageError } from '../usage_error.js';

/** The platforms with a `@lich/gateway-<platform>` package. */
export const GATEWAY_PLATFORMS = ['telegram', 'discord', 'twitch', 'webhook'] as const;

/** What a platform package exports for `lich gateway <platform>`: its bin's entry. */
interface PlatformPackage {
  run_cli(
    argv: readonly string[],
    io: {
      env: CommandContext['io']['env'];
      cwd: string;
      stdout: { write(text: string): unknown };
      stderr: { write(text: string): unknown };
      program: string;
    },
  ): Promise<number>;
}

/** True when `error` says that `name` itself (not one of its dependencies) is not installed. */
function is_missing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    (message.includes(`'${name}'`) || message.includes(`"${name}"`))
  );
}

/**
 * `packages/gateway-<platform>` of the checkout this CLI was built in (`apps/cli/dist/…` →
 * `packages/gateway-<platform>/dist/index.js`), when it is built there; null otherwise.
 */
async function workspace_package(platform: string): Promise<PlatformPackage | null> {
  const { existsSync } = await import('node:fs');
  const { dirname, join, resolve } = await import('node:path');
  const { pathToFileURL } = await import('node:url');
  // the bin and the bundle live under apps/cli/dist: the repository is three folders up
  for (let folder = dirname(process.argv[1] ?? ''), up = 0; up < 5; up++) {
    const entry = join(folder, 'packages', `gateway-${platform}`, 'dist', 'index.js');
    if (existsSync(entry) && existsSync(join(folder, 'pnpm-workspace.yaml'))) {
      const loaded = (await import(pathToFileURL(entry).href)) as Partial<PlatformPackage>;
      return typeof loaded.run_cli === 'function' ? (loaded as PlatformPackage) : null;
    }
    folder = resolve(folder, '..');
  }
  return null;
}

/**
 * Imports `@lich/gateway-<platform>` on demand (never statically: `lich` ships no platform SDK),
 * or says how to install it.
 */
async function load_platform(
  context: CommandContext,
  platform: string,
): Promise<PlatformPackage | null> {
  const name = `@lich/gateway-${platform}`;
  let loaded: Partial<PlatformPackage>;
  try {
    loaded = (await import(name)) as Partial<PlatformPackage>;
  } catch (error) {
    if (!is_missing(error, name)) throw error;
    // in a checkout of Lich, the package is built next to this CLI: use it
    const in_checkout = await workspace_package(platform);
    if (in_checkout !== null) return in_checkout;
    const { err } = context;
    context.say(
      `${err.red('lich:')} the ${platform} gateway is not installed. Install it next to lich:`,
    );
    context.say(`  npm i -g ${name}`);
    context.say(`or run it on its own: npx ${name}`);
    return null;
  }
  if (typeof loaded.run_cli !== 'function') {
    throw new Error(`${name} is installed but is not a Lich gateway package (it has no run_cli)`);
  }
  return loaded as PlatformPackage;
}

/**
 * `lich gateway pair <platform> [<code>]`: the pairing store is the same for every platform, so
 * this needs no platform package (S5); `-C`/`--work-dir` and `--state-dir` say where it is.
 */
async function pair_without_package(
  context: CommandContext,
  platform: string,
  argv: readonly string[],
): Promise<number> {
  const { parseArgs } = await import('node:util');
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        'work-dir': { type: 'string', short: 'C' },
        'state-dir': { type: 'string' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), 'gateway');
  }
  if (parsed.positionals.length > 1) throw new UsageError('pair takes one code', 'gateway');
  const { resolve } = await import('node:path');
  const { run_pairing } = await import('@lich/gateway');
  const state_dir = parsed.values['state-dir'];
  return run_pairing(platform, parsed.positionals[0], {
    work_dir: resolve(context.io.cwd, String(parsed.values['work-dir'] ?? '.')),
    ...(typeof state_dir === 'string' ? { state_dir } : {}),
    io: {
      env: context.io.env,
      cwd: context.io.cwd,
      stdout: context.io.stdout,
      stderr: context.io.stderr,
      program: `lich gateway pair ${platform}`,
    },
  });
}

/**
 * `lich gateway <platform> [options]` runs a chat-platform gateway; `lich gateway pair <platform>
 * <code>` lets in the user a pairing code was given to. Both hand over to the platform package's
 * `run_cli` (the same as its own bin), imported when asked for.
 */
export const command_gateway: Command = async (context) => {
  const argv = context.argv;
  const at = first_word_index(argv);
  if (at === -1) {
    const wants_help = argv.includes('--help') || argv.includes('-h');
    (wants_help ? context.io.stdout : context.io.stderr).write(`${help_text('gateway')}\n`);
    return wants_help ? EXIT.OK : EXIT.USAGE;
  }
  const word = argv[at] as string;
  let platform = word;
  let forwarded = [...argv.slice(0, at), ...argv.slice(at + 1)];
  if (word === 'pair') {
    const rest = forwarded;
    const platform_at = first_word_index(rest);
    if (platform_at === -1) throw new UsageError('pair needs a platform and a code', 'gateway');
    platform = rest[platform_at] as string;
    forwarded = ['pair', ...rest.slice(0, platform_at), ...rest.slice(platform_at + 1)];
  }
  if (!(GATEWAY_PLATFORMS as readonly string[]).includes(platform)) {
    throw new UsageError(
      `no gateway for '${platform}': the platforms are ${GATEWAY_PLATFORMS.join(', ')}`,
      'gateway',
      { word: platform, candidates: GATEWAY_PLATFORMS },
    );
  }
  if (word === 'pair') return pair_without_package(context, platform, forwarded.slice(1));
  const loaded = await load_platform(context, platform);
  if (loaded === null) return EXIT.USAGE;
  return loaded.run_cli(forwarded, {
    env: context.io.env,
    cwd: context.io.cwd,
    stdout: context.io.stdout,
    stderr: context.io.stderr,
    program: `lich gateway ${platform}`,
  });
};
