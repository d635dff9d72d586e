import { describe, expect, it } from 'vitest';
import { nearest_word } from './nearest_word.js';

describe('nearest_word', () => {
  it('suggests the closest candidate, a prefix match, or nothing', () => {
    const commands = ['run', 'chat', 'sessions', 'mcp', 'init', 'config', 'update'];
    expect(nearest_word('sesions', commands)).toBe('sessions');
    expect(nearest_word('CHAT', commands)).toBe('chat');
    expect(nearest_word('conf', commands)).toBe('config');
    expect(nearest_word('xyzzyplugh', commands)).toBeUndefined();
    expect(nearest_word('a', [])).toBeUndefined();
  });
});
