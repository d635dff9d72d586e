import { describe, expect, it } from 'vitest';
import { nearest_names, nearest_word } from './nearest_names.js';

describe('nearest_names', () => {
  it('finds tool names by edit distance or containment, closest first', () => {
    const names = ['read_file', 'write_file', 'edit_file', 'grep', 'glob'];
    expect(nearest_names('readfile', names)).toEqual(['read_file']);
    expect(nearest_names('gerp', names)).toContain('grep');
    expect(nearest_names('file', names).length).toBeGreaterThan(0);
    expect(nearest_names('zzzzzzzz', names)).toEqual([]);
  });

  it('suggests one command: the closest, a containing one, or none', () => {
    const commands = ['run', 'chat', 'sessions', 'mcp', 'init', 'config', 'update'];
    expect(nearest_word('sesions', commands)).toBe('sessions');
    expect(nearest_word('CHAT', commands)).toBe('chat');
    expect(nearest_word('conf', commands)).toBe('config');
    expect(nearest_word('xyzzyplugh', commands)).toBeUndefined();
    expect(nearest_word('a', [])).toBeUndefined();
  });
});
