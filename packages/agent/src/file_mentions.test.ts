import { describe, expect, it } from 'vitest';
import { attach_file_mentions, file_mentions } from './file_mentions.js';

describe('file_mentions', () => {
  it('finds @path words, not email addresses, without trailing punctuation', () => {
    expect(file_mentions('look at @src/main.ts, and @a.md.')).toEqual(['src/main.ts', 'a.md']);
    expect(file_mentions('mail me@example.com or @scope/pkg')).toEqual(['scope/pkg']);
    expect(file_mentions('@a @a @my\\ notes.txt')).toEqual(['a', 'my notes.txt']);
  });
});

describe('attach_file_mentions', () => {
  const ok = (output: string) => ({ ok: true, output, duration_ms: 1 });
  it('attaches the files that exist, skips the refused, leaves other words alone', async () => {
    const result = await attach_file_mentions(
      'compare @a.ts with @secret.env and ask @alice',
      (path) => path !== 'alice',
      async (path) =>
        path === 'a.ts'
          ? ok('     1\texport {};')
          : { ok: false, output: "'secret.env' is masked\nmore", duration_ms: 1 },
    );
    expect(result.attached).toEqual(['a.ts']);
    expect(result.skipped).toEqual([{ path: 'secret.env', why: "'secret.env' is masked" }]);
    expect(result.text).toBe(
      'compare @a.ts with @secret.env and ask @alice\n\n<file path="a.ts">\n     1\texport {};\n</file>',
    );
  });

  it('leaves a prompt without mentions as it is', async () => {
    const result = await attach_file_mentions(
      'plain',
      () => true,
      async () => ok('x'),
    );
    expect(result).toEqual({ text: 'plain', attached: [], images: [], skipped: [] });
  });

  it('attaches a picture as itself, leaving the text as written', async () => {
    const picture = {
      type: 'image' as const,
      media_type: 'image/png',
      data: 'AAAA',
      name: 'a.png',
    };
    const result = await attach_file_mentions(
      'what is wrong in @a.png?',
      () => true,
      async () => ({ ...ok("'a.png' is a picture"), images: [picture] }),
    );
    expect(result).toEqual({
      text: 'what is wrong in @a.png?',
      attached: ['a.png'],
      images: [picture],
      skipped: [],
    });
  });
});
