/**
 * `@lich/gateway-discord`: a Lich bot on Discord, through discord.js. Run it with
 * `npx @lich/gateway-discord` or `lich gateway discord`.
 */
export {
  DiscordAdapter,
  type DiscordAdapterOptions,
  DiscordIntentError,
} from './discord_adapter.js';
export { DISCORD_DEFINITION, make_discord_adapter, run_cli } from './discord_platform.js';
