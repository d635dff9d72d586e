import { describe, expect, it } from 'vitest';
import { config_checks } from './config_checks.js';
import { ProviderError } from './provider_error.js';

function thrown(run: () => unknown): ProviderError {
  try {
    run();
  } catch (error) {
    if (ProviderError.is_instance(error)) return error;
    throw error;
  }
  throw new Error('expected a ProviderError');
}

describe('config_checks', () => {
  const check = config_checks('example', { kind: 'example', model: 'm', base_url: 'nope' });

  it('fail makes a config error naming the provider and the model', () => {
    const error = check.fail('options.x must be 1');
    expect(error.kind).toBe('config');
    expect(error.provider).toBe('example');
    expect(error.model).toBe('m');
    expect(error.retryable).toBe(false);
    expect(error.message).toBe('example (m): config error: options.x must be 1');
  });

  it('url passes base_url to the endpoint function and maps its throw', () => {
    expect(check.url((base) => `${base}/chat`)).toBe('nope/chat');
    const no_base = config_checks('example', { kind: 'example', model: 'm' });
    expect(no_base.url((base = 'http://default') => base)).toBe('http://default');
    const error = thrown(() =>
      check.url(() => {
        throw new TypeError('Invalid URL');
      }),
    );
    expect(error.kind).toBe('config');
    expect(error.message).toMatch(/base_url is not a URL: 'nope'$/);
  });

  it('boolean takes undefined, true and false, and names the option otherwise', () => {
    for (const value of [undefined, true, false]) check.boolean('stream', value);
    for (const value of ['true', 0, null, {}]) {
      expect(thrown(() => check.boolean('stream', value)).message).toMatch(
        /: options\.stream must be true or false$/,
      );
    }
  });

  it('object takes undefined and plain objects; null, arrays and scalars fail', () => {
    for (const value of [undefined, {}, { a: 1 }]) check.object('extra_body', value);
    for (const value of [null, [], 'x', 1, true]) {
      expect(thrown(() => check.object('extra_body', value)).message).toMatch(
        /: options\.extra_body must be an object$/,
      );
    }
    expect(thrown(() => check.object('thinking', 'on', 'e.g. { type: 1 }')).message).toMatch(
      /: options\.thinking must be an object, e\.g\. \{ type: 1 \}$/,
    );
  });
});
