import { describe, expect, it } from 'vitest';
import { openai_chat_url } from './openai_endpoint.js';

describe('openai_chat_url', () => {
  it('handles bases with or without /v1 and trailing slashes', () => {
    expect(openai_chat_url()).toBe('https://api.openai.com/v1/chat/completions');
    expect(openai_chat_url('https://api.openai.com/v1/')).toBe(
      'https://api.openai.com/v1/chat/completions',
    );
    expect(openai_chat_url('http://127.0.0.1:8000')).toBe(
      'http://127.0.0.1:8000/v1/chat/completions',
    );
    expect(openai_chat_url('http://127.0.0.1:8000/')).toBe(
      'http://127.0.0.1:8000/v1/chat/completions',
    );
    expect(openai_chat_url('https://openrouter.ai/api/v1')).toBe(
      'https://openrouter.ai/api/v1/chat/completions',
    );
    expect(openai_chat_url('http://h:1234/v1/chat/completions')).toBe(
      'http://h:1234/v1/chat/completions',
    );
  });

  it('takes a base without a scheme as http, and throws on one that is no URL', () => {
    expect(openai_chat_url('localhost:8000/v1')).toBe('http://localhost:8000/v1/chat/completions');
    expect(() => openai_chat_url('http://')).toThrow();
  });
});
