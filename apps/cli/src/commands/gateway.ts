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
