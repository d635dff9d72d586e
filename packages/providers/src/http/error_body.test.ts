import { describe, expect, it } from 'vitest';
import { default_extract_error } from './error_body.js';

describe('default_extract_error', () => {
  it('reads the OpenAI, Anthropic and Ollama shapes', () => {
    expect(
      default_extract_error(
        { error: { message: 'quota', type: 'insufficient_quota', code: 'insufficient_quota' } },
        '',
      ),
    ).toEqual({ message: 'quota', code: 'insufficient_quota' });
    expect(
      default_extract_error(
        { error: { message: 'bad', type: 'invalid_request_error', code: null } },
        '',
      ),
    ).toEqual({
      message: 'bad',
      code: 'invalid_request_error',
    });
    expect(
      default_extract_error(
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        '',
      ),
    ).toEqual({ message: 'Overloaded', code: 'overloaded_error' });
    expect(default_extract_error({ error: 'model "x" not found' }, '')).toEqual({
      message: 'model "x" not found',
    });
  });

  it('falls back to message/detail, HTML titles and plain text', () => {
    expect(default_extract_error({ detail: 'Not Found' }, '')).toEqual({
      message: 'Not Found',
      code: undefined,
    });
    expect(
      default_extract_error(
        undefined,
        '<html><head><title>503 Service Unavailable</title></head></html>',
      ),
    ).toEqual({
      message: '503 Service Unavailable',
    });
    expect(default_extract_error(undefined, '  upstream connect error  ')).toEqual({
      message: 'upstream connect error',
    });
    expect(default_extract_error(undefined, '')).toBeUndefined();
  });
});
