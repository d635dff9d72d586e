import { describe, expect, it } from 'vitest';
import { apply_exact_edit, unified_diff } from './exact_edit.js';

describe('apply_exact_edit', () => {
  it('replaces one occurrence, or all with replace_all', () => {
    expect(apply_exact_edit('a b a', { path: 'f', old_text: 'b', new_text: '$&c' })).toEqual({
      ok: true,
      after: 'a $&c a',
      count: 1,
    });
    expect(
      apply_exact_edit('a b a', { path: 'f', old_text: 'a', new_text: 'x', replace_all: true }),
    ).toEqual({
      ok: true,
      after: 'x b x',
      count: 2,
    });
  });

  it('matches LF text against CRLF files and writes CRLF', () => {
    expect(
      apply_exact_edit('one\r\ntwo\r\n', { path: 'f', old_text: 'one\ntwo', new_text: '1\n2' }),
    ).toEqual({
      ok: true,
      after: '1\r\n2\r\n',
      count: 1,
    });
  });

  it('refuses empty, unchanged, missing and ambiguous edits', () => {
    const refused = (before: string, old_text: string, new_text: string) => {
      const result = apply_exact_edit(before, { path: 'f', old_text, new_text });
      return result.ok ? '' : result.message;
    };
    expect(refused('x', '', 'y')).toContain('old_text is empty');
    expect(refused('x', 'x', 'x')).toContain('the same');
    expect(refused('  hello world\n', 'hello  world', 'z')).toContain(
      'Its first line matches, ignoring whitespace, at line 1',
    );
    expect(refused('a\na\n', 'a', 'b')).toContain('occurs 2 times');
  });
});

describe('unified_diff', () => {
  it('is headed a/ and b/', async () => {
    const diff = await unified_diff('n.txt', 'one\n', 'two\n');
    expect(diff).toBe('--- a/n.txt\n+++ b/n.txt\n@@ -1,1 +1,1 @@\n-one\n+two\n');
  });
});
