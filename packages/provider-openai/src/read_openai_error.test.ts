import { describe, expect, it } from 'vitest';
import { map_openai_finish_reason } from './map_openai_finish_reason.js';
import { read_openai_error } from './read_openai_error.js';

describe('read_openai_error', () => {
  it('reads the OpenAI shape, preferring code over type', () => {
    expect(
      read_openai_error({
        error: {
          message: 'You exceeded your quota',
          type: 'insufficient_quota',
          code: 'insufficient_quota',
        },
      }),
    ).toEqual({ provider_message: 'You exceeded your quota', code: 'insufficient_quota' });
    expect(
      read_openai_error({ error: { message: 'x', type: 'invalid_request_error', code: null } }),
    ).toEqual({
      provider_message: 'x',
      code: 'invalid_request_error',
    });
  });

  it('reads the flat vLLM shape, a string error, JSON text and HTML', () => {
    expect(
      read_openai_error({
        object: 'error',
        message: 'no such model',
        type: 'NotFoundError',
        code: 404,
      }),
    ).toEqual({
      provider_message: 'no such model',
      code: 'NotFoundError',
      status: 404,
    });
    expect(read_openai_error({ error: 'model not loaded' })).toEqual({
      provider_message: 'model not loaded',
    });
    expect(read_openai_error('{"error":{"message":"m"}}')).toEqual({ provider_message: 'm' });
    const html = read_openai_error(`<html>\n<body>${'x'.repeat(1000)}</body></html>`);
    expect(html.provider_message?.startsWith('<html> <body>')).toBe(true);
    expect(html.provider_message?.length).toBeLessThan(310);
    expect(read_openai_error('')).toEqual({});
    expect(read_openai_error(null)).toEqual({});
  });
});

describe('map_openai_finish_reason', () => {
  it('maps the reasons and trusts tool calls over a plain stop', () => {
    expect(map_openai_finish_reason('stop', false)).toBe('stop');
    expect(map_openai_finish_reason('stop', true)).toBe('tool_calls');
    expect(map_openai_finish_reason('tool_calls', true)).toBe('tool_calls');
    expect(map_openai_finish_reason('length', true)).toBe('length');
    expect(map_openai_finish_reason('content_filter', false)).toBe('content_filter');
    expect(map_openai_finish_reason(null, false)).toBe('stop');
    expect(map_openai_finish_reason('weird', false)).toBe('other');
  });
});
