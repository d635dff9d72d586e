/**
 * `@lich/gateway-twitch`: a Lich bot in Twitch chat, through tmi.js. Run it with
 * `npx @lich/gateway-twitch` or `lich gateway twitch`.
 */
export { SendWindow } from './send_window.js';
export { TwitchAdapter, type TwitchAdapterOptions } from './twitch_adapter.js';
export { make_twitch_adapter, run_cli, TWITCH_DEFINITION } from './twitch_platform.js';
