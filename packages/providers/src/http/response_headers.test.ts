import { describe, expect, it } from 'vitest';
import { parse_request_id, parse_retry_after, parse_should_retry } from './response_headers.js';

describe('response headers', () => {
  it('reads retry-after-ms first, then retry-after seconds or date', () => {
    expect(parse_retry_after(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(
      1500,
    );
    expect(parse_retry_after(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(parse_retry_after(new Headers({ 'retry-after': '0.5' }))).toBe(500);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(
      parse_retry_after(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now),
    ).toBe(3000);
    expect(parse_retry_after(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parse_retry_after(new Headers({ 'retry-after-ms': 'x', 'retry-after': '1' }))).toBe(
      1000,
    );
    expect(parse_retry_after(new Headers())).toBeUndefined();
  });

  it('reads x-should-retry and the request id', () => {
    expect(parse_should_retry(new Headers({ 'x-should-retry': 'true' }))).toBe(true);
    expect(parse_should_retry(new Headers({ 'x-should-retry': 'FALSE' }))).toBe(false);
    expect(parse_should_retry(new Headers({ 'x-should-retry': 'maybe' }))).toBeUndefined();
    expect(parse_request_id(new Headers({ 'request-id': 'req_1' }))).toBe('req_1');
    expect(parse_request_id(new Headers({ 'x-request-id': 'req_2', 'request-id': 'req_1' }))).toBe(
      'req_2',
    );
  });
});
