import { describe, expect, it } from 'vitest';
import { anthropic_messages_url } from './anthropic_endpoint.js';

describe('anthropic_messages_url', () => {
  it('handles bases with or without /v1 and trailing slashes', () => {
    const expected = 'https://api.anthropic.com/v1/messages';
    expect(anthropic_messages_url()).toBe(expected);
    expect(anthropic_messages_url('https://api.anthropic.com/')).toBe(expected);
    expect(anthropic_messages_url('https://api.anthropic.com/v1')).toBe(expected);
    expect(anthropic_messages_url('https://api.anthropic.com/v1/messages/')).toBe(expected);
    expect(anthropic_messages_url('http://proxy:8080/anthropic')).toBe(
      'http://proxy:8080/anthropic/v1/messages',
    );
  });
});
