/**
 * `@lich/gateway-webhook`: a Lich bot behind a signed HTTP webhook (Standard Webhooks), with
 * replies in the HTTP response or POSTed to a signed, retried callback. `npx @lich/gateway-webhook`
 * or `lich gateway webhook` runs it.
 */
export { CallbackSender, type CallbackSenderOptions } from './callback_sender.js';
export {
  DEFAULT_TOLERANCE_S,
  decode_webhook_secret,
  sign_webhook,
  signed_headers,
  verify_webhook,
  WEBHOOK_HEADERS,
  type WebhookRefusal,
  WebhookSecretError,
  type WebhookVerdict,
} from './standard_webhooks.js';
export { WebhookAdapter, type WebhookAdapterOptions } from './webhook_adapter.js';
export {
  type ParsedPayload,
  parse_payload,
  WEBHOOK_PLATFORM,
  type WebhookPayload,
} from './webhook_payload.js';
export {
  DEFAULT_SECRET_ENV,
  make_webhook_adapter,
  run_cli,
  WEBHOOK_DEFINITION,
} from './webhook_platform.js';
