import { describe, expect, it } from 'vitest';
import { configured_secrets, scrub_error, scrub_text, scrubbing_chat } from './secret_scrub.js';

describe('configured_secrets', () => {
  it('takes each key variable and header value, and the token after Bearer', () => {
    const secrets = configured_secrets(
      [
        {
          kind: 'openai_compat',
          model: 'm',
          api_key_env: 'SEC_KEY',
          headers: { 'X-Api-Token': 'HDR-0123-token', Authorization: 'Bearer tok-456789' },
        },
        { kind: 'anthropic', model: 'c' },
        { kind: 'ollama', model: 'o', headers: { 'X-Short': 'ab' } },
      ],
      { SEC_KEY: 'sk-SECRETKEY-0123', ANTHROPIC_API_KEY: 'sk-ant-999999' },
    );
    expect(secrets).toEqual([
      'sk-SECRETKEY-0123',
      'Bearer tok-456789',
      'HDR-0123-token',
      'sk-ant-999999',
      'tok-456789',
    ]);
  });
});

describe('scrub_error', () => {
  it('cuts secrets out of the message, the stack, the provider message, causes and lists', () => {
    const inner = Object.assign(new Error('inner sk-SECRET-1'), {
      provider_message: 'sk-SECRET-1',
    });
    const error = Object.assign(new Error('failed: sk-SECRET-1'), {
      provider_message: 'Incorrect API key provided: sk-SECRET-1',
      errors: [inner],
      cause: new Error('cause sk-SECRET-1'),
    });
    scrub_error(error, ['sk-SECRET-1']);
    expect(error.message).toBe('failed: [redacted]');
    expect(error.stack).not.toContain('sk-SECRET-1');
    expect(error.provider_message).toBe('Incorrect API key provided: [redacted]');
    expect(inner.message).toBe('inner [redacted]');
    expect((error.cause as Error).message).toBe('cause [redacted]');
    expect(scrub_text('a sk-SECRET-1 b', [])).toBe('a sk-SECRET-1 b');
  });

  it('is applied to every failure of a wrapped ChatFn', async () => {
    const chat = scrubbing_chat(
      () => Promise.reject(new Error('key sk-SECRET-1 refused')),
      ['sk-SECRET-1'],
    );
    await expect(chat([], [])).rejects.toThrow('key [redacted] refused');
  });
});
