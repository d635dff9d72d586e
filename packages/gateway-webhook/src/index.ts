/**
 * `@lich/gateway-webhook`: a Lich bot behind a signed HTTP webhook (Standard Webhooks), with
 * replies in the HTTP response or POSTed to a signed, retried callback. `npx @lich/gateway-webhook`
 * or `lich gateway webhook` runs it.
 */
export {
  decode_webhook_secret,
  sign_webhook,
  signed_headers,
  verify_webhook,
  type WebhookRefusal,
  WebhookSecretError,
  type WebhookVerdict,
} from './standard_webhooks.js';
export { WebhookAdapter, type WebhookAdapterOptions } from './webhook_adapter.js';
export type { WebhookPayload } from './webhook_payload.js';
export { make_webhook_adapter, run_cli, WEBHOOK_DEFINITION } from './webhook_platform.js';
