import {
  type AdapterInput,
  GatewayConfigError,
  max_image_bytes_setting,
  type PlatformCliIo,
  type PlatformDefinition,
  run_platform_cli,
} from '@lich/gateway';
import { DiscordAdapter, type DiscordAdapterOptions } from './discord_adapter.js';
import { DISCORD_PLATFORM } from './discord_message.js';

/** The environment variable the bot token is read from, unless `token_env` names another. */
export const DEFAULT_TOKEN_ENV = 'DISCORD_BOT_TOKEN';

const SETTINGS_KEYS = ['token_env', 'api', 'register_commands', 'max_image_bytes'];

/** Builds the adapter from flags (first), the `discord` settings section, and the environment. */
export function make_discord_adapter(input: AdapterInput): DiscordAdapter {
  const { flags, settings, env } = input;
  for (const key of Object.keys(settings)) {
    if (!SETTINGS_KEYS.includes(key)) {
      input.log({ level: 'warn', message: `discord: unknown setting ${key} is ignored` });
    }
  }
  const token_env = settings.token_env ?? DEFAULT_TOKEN_ENV;
  if (typeof token_env !== 'string' || token_env === '') {
    throw new GatewayConfigError('token_env must be a non-empty string');
  }
  const token = env[token_env];
  if (token === undefined || token === '') {
    throw new GatewayConfigError(
      `set ${token_env} to the bot token (Developer Portal → your application → Bot → Reset Token)`,
    );
  }
  const options: DiscordAdapterOptions = { token, log: input.log };
  const api = flags.api ?? settings.api;
  if (api !== undefined) {
    if (typeof api !== 'string' || api === '') throw new GatewayConfigError('api must be a URL');
    options.api = api;
  }
  if (flags['register-commands'] === true || settings.register_commands === true) {
    options.register_commands = true;
  }
  const max_image_bytes = max_image_bytes_setting(settings.max_image_bytes);
  if (max_image_bytes !== undefined) options.max_image_bytes = max_image_bytes;
  return new DiscordAdapter(options);
}

/** What `lich gateway discord` and `npx @lich/gateway-discord` run. */
export const DISCORD_DEFINITION: PlatformDefinition = {
  platform: DISCORD_PLATFORM,
  package_name: '@lich/gateway-discord',
  description: 'a Lich bot on Discord (DMs, and guild channels when mentioned)',
  options: {
    'register-commands': { type: 'boolean', help: 'register the /lich slash command at start' },
    api: { type: 'string', hint: '<url>', help: "the REST API root (default Discord's)" },
  },
  help: `Environment:
  DISCORD_BOT_TOKEN   the bot token (required; token_env names another)

Settings: the "discord" section of .lich/gateway.json takes the access keys (allow_users,
allow_groups, dm_policy, group_policy, allow_all), the bus keys, and token_env, api,
register_commands. allow_users are user ids; allow_groups are channel or thread ids. A thread is
its own conversation. The bot needs the MESSAGE CONTENT privileged intent (Developer Portal →
Bot → Privileged Gateway Intents).`,
  make_adapter: make_discord_adapter,
};

/** Runs the Discord gateway command (`run`, `pair <code>`, `--help`); resolves the exit code. */
export function run_cli(argv: readonly string[], io?: Partial<PlatformCliIo>): Promise<number> {
  return run_platform_cli(DISCORD_DEFINITION, argv, io);
}
