import { describe, expect, it } from 'vitest';
import { first_word_index, looks_like_command } from './command_words.js';

describe('first_word_index', () => {
  it('skips options and their values', () => {
    expect(first_word_index(['-C', 'dir', 'sessions', 'list'])).toBe(2);
    expect(first_word_index(['--no-session', 'init'])).toBe(1);
    expect(first_word_index(['-m', 'x', '--work-dir=y', 'config'])).toBe(3);
    expect(first_word_index(['--json'])).toBe(-1);
    expect(first_word_index(['--', 'init'])).toBe(-1);
  });

  it('skips the value of every serve option that takes one', () => {
    expect(first_word_index(['--port', '0', 'serve'])).toBe(2);
    expect(first_word_index(['--host', '::1', '--allow-origin', 'http://a.test', 'serve'])).toBe(4);
    expect(first_word_index(['--approval-mode', 'yolo', '--allow-remote', 'serve'])).toBe(3);
  });
});

describe('looks_like_command', () => {
  it('knows typos from short real tasks', async () => {
    expect(await looks_like_command('sesions')).toBe('sessions');
    expect(await looks_like_command('sesion')).toBe('sessions');
    expect(await looks_like_command('chats')).toBe('chat');
    expect(await looks_like_command('tuii')).toBe('tui');
    expect(await looks_like_command('p')).toBeUndefined();
    expect(await looks_like_command('hello')).toBeUndefined();
    expect(await looks_like_command('fix')).toBeUndefined();
    expect(await looks_like_command('sessions are slow')).toBeUndefined();
  });
});
