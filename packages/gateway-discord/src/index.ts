/**
 * `@lich/gateway-discord`: a Lich bot on Discord, through discord.js. Run it with
 * `npx @lich/gateway-discord` or `lich gateway discord`.
 */
export {
  DISCORD_MESSAGE_LIMIT,
  DiscordAdapter,
  type DiscordAdapterOptions,
  DiscordIntentError,
  LICH_COMMAND,
} from './discord_adapter.js';
export { DISCORD_PLATFORM, to_inbound } from './discord_message.js';
export {
  DEFAULT_TOKEN_ENV,
  DISCORD_DEFINITION,
  make_discord_adapter,
  run_cli,
} from './discord_platform.js';
