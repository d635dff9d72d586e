/**
 * `@lich/gateway-telegram`: a Lich bot on Telegram, through grammy. Run it with
 * `npx @lich/gateway-telegram` or `lich gateway telegram`.
 */
export {
  TELEGRAM_MESSAGE_LIMIT,
  TelegramAdapter,
  type TelegramAdapterOptions,
  type TelegramWebhookOptions,
} from './telegram_adapter.js';
export { type FormattedMessage, format_telegram, type TelegramEntity } from './telegram_format.js';
export {
  local_command,
  split_chat_id,
  TELEGRAM_PLATFORM,
  type TelegramBotIdentity,
  type TelegramMessage,
  telegram_chat_id,
  to_inbound,
} from './telegram_message.js';
export {
  DEFAULT_SECRET_ENV,
  DEFAULT_TOKEN_ENV,
  make_telegram_adapter,
  run_cli,
  TELEGRAM_DEFINITION,
} from './telegram_platform.js';
