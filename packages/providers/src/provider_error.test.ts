import { describe, expect, it } from 'vitest';
import { ProviderError } from './provider_error.js';

const base = { kind: 'stream' as const, provider: 'openai_compat', model: 'm1' };

describe('ProviderError', () => {
  it('names provider, model, status, code and the provider message', () => {
    const error = new ProviderError({
      kind: 'http',
      provider: 'anthropic',
      model: 'claude-x',
      status: 429,
      code: 'rate_limit_error',
      provider_message: 'slow down',
      request_id: 'req_1',
    });
    expect(error.message).toBe(
      'anthropic (claude-x): HTTP 429 rate_limit_error: slow down [request req_1]',
    );
    expect(error.retryable).toBe(true);
    expect(ProviderError.is_instance(error)).toBe(true);
    expect(ProviderError.is_instance(new Error('x'))).toBe(false);
  });

  it('does not retry client errors or quota errors', () => {
    expect(new ProviderError({ ...base, kind: 'http', status: 401 }).retryable).toBe(false);
    expect(
      new ProviderError({ ...base, kind: 'http', status: 429, code: 'insufficient_quota' })
        .retryable,
    ).toBe(false);
  });

  it('with_delivered marks a copy and keeps every other field', () => {
    const error = new ProviderError({ ...base, status: 500, message: 'custom', retry_after_ms: 5 });
    expect(error.with_delivered(false)).toBe(error);
    const marked = error.with_delivered(true);
    expect(marked).not.toBe(error);
    expect(marked.delivered).toBe(true);
    expect(marked.message).toBe('custom');
    expect(marked.retry_after_ms).toBe(5);
    expect(marked.retryable).toBe(error.retryable);
    expect(marked.with_delivered(true)).toBe(marked);
  });
});
