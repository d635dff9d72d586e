import { createHmac, timingSafeEqual } from 'node:crypto';

/** The names of the three headers Standard Webhooks signs with: id, timestamp, signature. */
export const WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** The default tolerance between the sender's clock and ours: 5 minutes. */
export const DEFAULT_TOLERANCE_S = 300;

/** A secret that is not `whsec_<base64>`. */
export class WebhookSecretError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSecretError';
  }
}

/**
 * The key bytes of a Standard Webhooks secret: `whsec_` followed by base64 (at least 16 bytes).
 * Throws `WebhookSecretError` for anything else, so a mistyped secret fails at start, not on
 * every request.
 */
export function decode_webhook_secret(secret: string): Buffer {
  if (!secret.startsWith('whsec_')) {
    throw new WebhookSecretError('the webhook secret must start with whsec_ (then base64)');
  }
  const encoded = secret.slice('whsec_'.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new WebhookSecretError('the webhook secret after whsec_ is not base64');
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length < 16) {
    throw new WebhookSecretError('the webhook secret is too short (at least 16 bytes)');
  }
  return key;
}

function hmac(key: Buffer, id: string, timestamp: string, body: Buffer | string): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
}

/** The `webhook-signature` value for a message: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function sign_webhook(
  key: Buffer,
  id: string,
  timestamp: number | string,
  body: Buffer | string,
): string {
  return `v1,${hmac(key, id, String(timestamp), body).toString('base64')}`;
}

/** The three headers of a signed request, ready to send. */
export function signed_headers(
  key: Buffer,
  id: string,
  body: Buffer | string,
  now_s: number = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    [WEBHOOK_HEADERS.id]: id,
    [WEBHOOK_HEADERS.timestamp]: String(now_s),
    [WEBHOOK_HEADERS.signature]: sign_webhook(key, id, now_s, body),
  };
}

/** Why a request's signature was refused. */
export type WebhookRefusal = 'missing_headers' | 'bad_timestamp' | 'stale' | 'bad_signature';

/** What verifying a request found. */
export type WebhookVerdict =
  | { ok: true; id: string; timestamp: number }
  | { ok: false; reason: WebhookRefusal };

/** How one header is read: Node's lower-cased header object, or a function. */
type HeaderSource = Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a Standard Webhooks request.
 *
 * Contract: refuses `missing_headers` when one of the three headers is absent or empty,
 * `bad_timestamp` when the timestamp is not whole seconds, `stale` when it is more than
 * `tolerance_s` from `now_s` either way, `bad_signature` unless one of the space-separated `v1,`
 * signatures is the HMAC of `id.timestamp.body` under `key` (compared in constant time; other
 * versions are skipped). Replays (an id seen before) are the caller's to refuse.
 */
export function verify_webhook(
  key: Buffer,
  headers: HeaderSource,
  body: Buffer | string,
  options: { now_s?: number; tolerance_s?: number } = {},
): WebhookVerdict {
  const id = header(headers, WEBHOOK_HEADERS.id);
  const timestamp = header(headers, WEBHOOK_HEADERS.timestamp);
  const signatures = header(headers, WEBHOOK_HEADERS.signature);
  if (!id || !timestamp || !signatures) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,15}$/.test(timestamp)) return { ok: false, reason: 'bad_timestamp' };
  const sent = Number(timestamp);
  const now = options.now_s ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - sent) > (options.tolerance_s ?? DEFAULT_TOLERANCE_S)) {
    return { ok: false, reason: 'stale' };
  }
  const expected = hmac(key, id, timestamp, body);
  let matched = false;
  for (const candidate of signatures.split(' ')) {
    const [version, encoded] = candidate.split(',', 2);
    if (version !== 'v1' || encoded === undefined) continue;
    const given = Buffer.from(encoded, 'base64');
    // every candidate is compared, so the time taken does not say which one matched
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched ? { ok: true, id, timestamp: sent } : { ok: false, reason: 'bad_signature' };
}
