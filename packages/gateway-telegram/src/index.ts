/**
 * `@lich/gateway-telegram`: a Lich bot on Telegram, through grammy. Run it with
 * `npx @lich/gateway-telegram` or `lich gateway telegram`.
 */
export {
  TelegramAdapter,
  type TelegramAdapterOptions,
  type TelegramWebhookOptions,
} from './telegram_adapter.js';
export type { TelegramBotIdentity } from './telegram_message.js';
export { make_telegram_adapter, run_cli, TELEGRAM_DEFINITION } from './telegram_platform.js';
