import { describe, expect, it } from 'vitest';
import { ollama_chat_url } from './ollama_endpoint.js';

describe('ollama_chat_url', () => {
  it('handles bases with or without /api, /v1 and trailing slashes', () => {
    const expected = 'http://127.0.0.1:11434/api/chat';
    expect(ollama_chat_url()).toBe(expected);
    expect(ollama_chat_url('http://127.0.0.1:11434/')).toBe(expected);
    expect(ollama_chat_url('http://127.0.0.1:11434/api')).toBe(expected);
    expect(ollama_chat_url('http://127.0.0.1:11434/api/chat')).toBe(expected);
    expect(ollama_chat_url('http://127.0.0.1:11434/v1/')).toBe(expected);
  });
});
