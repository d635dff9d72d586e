import {
  type AdapterInput,
  GatewayConfigError,
  type PlatformCliIo,
  type PlatformDefinition,
  run_platform_cli,
} from '@lich/gateway';
import { TWITCH_PLATFORM, TwitchAdapter, type TwitchAdapterOptions } from './twitch_adapter.js';

/** The environment variables of the bot's login, unless `username_env` / `token_env` name others. */
export const DEFAULT_USERNAME_ENV = 'TWITCH_USERNAME';
export const DEFAULT_TOKEN_ENV = 'TWITCH_OAUTH_TOKEN';

const SETTINGS_KEYS = [
  'channels',
  'prefix',
  'moderator',
  'username_env',
  'token_env',
  'server',
  'port',
  'secure',
];

function list(value: unknown): string[] {
  if (value === undefined) return [];
  const items = Array.isArray(value) ? value : [value];
  return items
    .flatMap((item) => String(item).split(','))
    .map((item) => item.trim())
    .filter(Boolean);
}

function required_env(env: AdapterInput['env'], name: unknown, what: string): string {
  if (typeof name !== 'string' || name === '')
    throw new GatewayConfigError(`${what}: bad variable name`);
  const value = env[name];
  if (value === undefined || value === '') throw new GatewayConfigError(`set ${name} to ${what}`);
  return value;
}

/** Builds the adapter from flags (first), the `twitch` settings section, and the environment. */
export function make_twitch_adapter(input: AdapterInput): TwitchAdapter {
  const { flags, settings, env } = input;
  for (const key of Object.keys(settings)) {
    if (!SETTINGS_KEYS.includes(key)) {
      input.log({ level: 'warn', message: `twitch: unknown setting ${key} is ignored` });
    }
  }
  const channels = [
    ...list(flags.channel),
    ...(flags.channel === undefined ? list(settings.channels) : []),
  ];
  if (channels.length === 0) {
    throw new GatewayConfigError(
      'name the channels to join: --channel <name> or "channels" in the twitch section',
    );
  }
  const username = required_env(
    env,
    settings.username_env ?? DEFAULT_USERNAME_ENV,
    "the bot account's login name",
  );
  let token = required_env(
    env,
    settings.token_env ?? DEFAULT_TOKEN_ENV,
    "the bot account's OAuth token (oauth:…)",
  );
  if (!token.startsWith('oauth:')) token = `oauth:${token}`;
  const options: TwitchAdapterOptions = { username, token, channels, log: input.log };
  const prefix = flags.prefix ?? settings.prefix;
  if (prefix !== undefined) options.prefix = String(prefix);
  if (flags.moderator === true || settings.moderator === true) options.moderator = true;
  const server = flags.server ?? settings.server;
  if (server !== undefined) {
    const port = Number(flags.port ?? settings.port ?? 443);
    if (!Number.isInteger(port) || port <= 0)
      throw new GatewayConfigError('port must be a whole number');
    options.connection = {
      server: String(server),
      port,
      secure: settings.secure !== false && port === 443,
    };
  }
  return new TwitchAdapter(options);
}

/** What `lich gateway twitch` and `npx @lich/gateway-twitch` run. */
export const TWITCH_DEFINITION: PlatformDefinition = {
  platform: TWITCH_PLATFORM,
  package_name: '@lich/gateway-twitch',
  description: 'a Lich bot in Twitch chat (answers @name or !lich, within the rate limits)',
  options: {
    channel: {
      type: 'string',
      multiple: true,
      hint: '<name>',
      help: 'a channel to join (repeatable)',
    },
    prefix: {
      type: 'string',
      hint: '<text>',
      help: 'the command prefix that addresses the bot (default !lich)',
    },
    moderator: {
      type: 'boolean',
      help: 'the bot moderates its channels: 100 messages per 30 s, not 20',
    },
    server: { type: 'string', hint: '<host>', help: "the chat server (default Twitch's)" },
    port: { type: 'string', hint: '<n>', help: 'its port (default 443, TLS)' },
  },
  help: `Environment:
  TWITCH_USERNAME      the bot account's login name (username_env names another)
  TWITCH_OAUTH_TOKEN   its user access token with chat:read and chat:edit (token_env names another)

Settings: the "twitch" section of .lich/gateway.json takes the access keys (allow_users are
Twitch user ids; allow_groups channel names), the bus keys, and channels, prefix, moderator,
username_env, token_env, and for another chat server (a test server) server, port and secure
(TLS: true by default on port 443; false for a plain-text server). Each channel is one
conversation; there are no direct messages.`,
  make_adapter: make_twitch_adapter,
};

/** Runs the Twitch gateway command (`run`, `--help`); resolves the exit code. */
export function run_cli(argv: readonly string[], io?: Partial<PlatformCliIo>): Promise<number> {
  return run_platform_cli(TWITCH_DEFINITION, argv, io);
}
