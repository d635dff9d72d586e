import { describe, expect, it } from 'vitest';
import { config_checks } from './config_checks.js';

describe('config_checks', () => {
  const check = config_checks('example', { kind: 'example', model: 'm', base_url: 'nope' });
  const config_error = (message: RegExp) =>
    expect.objectContaining({
      kind: 'config',
      provider: 'example',
      model: 'm',
      message: expect.stringMatching(message),
    });

  it('fail makes a config error naming the provider and the model', () => {
    const error = check.fail('options.x must be 1');
    expect(error).toMatchObject({ kind: 'config', provider: 'example', retryable: false });
    expect(error.message).toBe('example (m): config error: options.x must be 1');
  });

  it('url passes base_url to the endpoint function and maps its throw', () => {
    expect(check.url((base) => `${base}/chat`)).toBe('nope/chat');
    const no_base = config_checks('example', { kind: 'example', model: 'm' });
    expect(no_base.url((base = 'http://default') => base)).toBe('http://default');
    const invalid = () => {
      throw new TypeError('Invalid URL');
    };
    expect(() => check.url(invalid)).toThrow(config_error(/base_url is not a URL: 'nope'$/));
  });

  it('boolean takes undefined, true and false, and names the option otherwise', () => {
    for (const value of [undefined, true, false]) check.boolean('stream', value);
    for (const value of ['true', 0, null, {}]) {
      expect(() => check.boolean('stream', value)).toThrow(
        config_error(/: options\.stream must be true or false$/),
      );
    }
  });

  it('object takes undefined and plain objects; null, arrays and scalars fail', () => {
    for (const value of [undefined, {}, { a: 1 }]) check.object('extra_body', value);
    for (const value of [null, [], 'x', 1, true]) {
      expect(() => check.object('extra_body', value)).toThrow(
        config_error(/: options\.extra_body must be an object$/),
      );
    }
    expect(() => check.object('thinking', 'on', 'e.g. { type: 1 }')).toThrow(
      config_error(/: options\.thinking must be an object, e\.g\. \{ type: 1 \}$/),
    );
  });
});
