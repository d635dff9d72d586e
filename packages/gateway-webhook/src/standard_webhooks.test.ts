import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decode_webhook_secret,
  sign_webhook,
  signed_headers,
  verify_webhook,
  WebhookSecretError,
} from './standard_webhooks.js';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const KEY = decode_webhook_secret(SECRET);
const NOW = 1_700_000_000;

describe('Standard Webhooks', () => {
  it('matches the spec: v1 and the base64 HMAC-SHA256 of "id.timestamp.body"', () => {
    const expected = createHmac('sha256', KEY).update('msg_1.1700000000.{"a":1}').digest('base64');
    expect(sign_webhook(KEY, 'msg_1', NOW, '{"a":1}')).toBe(`v1,${expected}`);
  });

  it('verifies what it signs, in the window, either way', () => {
    const body = '{"text":"hi"}';
    for (const skew of [0, 299, -299]) {
      const headers = signed_headers(KEY, 'msg_1', body, NOW + skew);
      expect(verify_webhook(KEY, headers, body, { now_s: NOW })).toEqual({
        ok: true,
        id: 'msg_1',
        timestamp: NOW + skew,
      });
    }
  });

  it('refuses a stale or future timestamp, and one that is not seconds', () => {
    const body = '{}';
    for (const skew of [301, -301]) {
      const headers = signed_headers(KEY, 'msg_1', body, NOW + skew);
      expect(verify_webhook(KEY, headers, body, { now_s: NOW })).toEqual({
        ok: false,
        reason: 'stale',
      });
    }
    const headers = { ...signed_headers(KEY, 'msg_1', body, NOW), 'webhook-timestamp': '1.5e9' };
    expect(verify_webhook(KEY, headers, body, { now_s: NOW })).toMatchObject({
      reason: 'bad_timestamp',
    });
  });

  it('refuses another body, id, key, or a missing header', () => {
    const headers = signed_headers(KEY, 'msg_1', '{"a":1}', NOW);
    const check = (h: Record<string, string>, body = '{"a":1}', key = KEY) =>
      verify_webhook(key, h, body, { now_s: NOW });
    expect(check(headers, '{"a":2}')).toMatchObject({ reason: 'bad_signature' });
    expect(check({ ...headers, 'webhook-id': 'msg_2' })).toMatchObject({ reason: 'bad_signature' });
    expect(check(headers, '{"a":1}', randomBytes(24))).toMatchObject({ reason: 'bad_signature' });
    expect(check({ ...headers, 'webhook-signature': 'v1,' })).toMatchObject({
      reason: 'bad_signature',
    });
    const { 'webhook-signature': _signature, ...unsigned } = headers;
    expect(check(unsigned)).toEqual({ ok: false, reason: 'missing_headers' });
  });

  it('accepts any of several signatures (key rotation) and skips other versions', () => {
    const old_key = randomBytes(24);
    const body = 'x';
    const good = sign_webhook(KEY, 'm', NOW, body);
    const headers = {
      'webhook-id': 'm',
      'webhook-timestamp': String(NOW),
      'webhook-signature': `v1a,abc ${sign_webhook(old_key, 'm', NOW, body)} ${good}`,
    };
    expect(verify_webhook(KEY, headers, body, { now_s: NOW }).ok).toBe(true);
  });

  it('takes only whsec_ secrets of at least 16 bytes', () => {
    expect(() => decode_webhook_secret('supersecret')).toThrow(WebhookSecretError);
    expect(() => decode_webhook_secret('whsec_!!!')).toThrow(/base64/);
    expect(() => decode_webhook_secret('whsec_c2hvcnQ=')).toThrow(/too short/);
    expect(decode_webhook_secret(SECRET)).toHaveLength(24);
  });
});
