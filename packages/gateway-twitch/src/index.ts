/**
 * `@lich/gateway-twitch`: a Lich bot in Twitch chat, through tmi.js. Run it with
 * `npx @lich/gateway-twitch` or `lich gateway twitch`.
 */
export { SendWindow } from './send_window.js';
export {
  TWITCH_MESSAGE_LIMIT,
  TWITCH_PLATFORM,
  TWITCH_RATE,
  TwitchAdapter,
  type TwitchAdapterOptions,
} from './twitch_adapter.js';
export {
  DEFAULT_TOKEN_ENV,
  DEFAULT_USERNAME_ENV,
  make_twitch_adapter,
  run_cli,
  TWITCH_DEFINITION,
} from './twitch_platform.js';
