import { describe, expect, it } from 'vitest';
import { chunk_reply } from './chunk_reply.js';

/** True when every fence a chunk opens it also closes. */
function fences_balanced(chunk: string): boolean {
  let open: string | null = null;
  for (const line of chunk.split('\n')) {
    const match = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (match === null) continue;
    if (open === null) open = match[1] ?? null;
    else if ((match[2] ?? '').trim() === '') open = null;
  }
  return open === null;
}

describe('chunk_reply', () => {
  it('keeps a text that fits in one chunk and gives none for a blank one', () => {
    expect(chunk_reply('hello', 100)).toEqual(['hello']);
    expect(chunk_reply('  \n ', 100)).toEqual([]);
  });

  it('breaks at a paragraph first', () => {
    const text = `${'a'.repeat(30)} ${'b'.repeat(20)}.\n\n${'c'.repeat(40)}`;
    expect(chunk_reply(text, 60)).toEqual([`${'a'.repeat(30)} ${'b'.repeat(20)}.`, 'c'.repeat(40)]);
  });

  it('then at a line, then a sentence, then a word', () => {
    expect(chunk_reply(`${'a'.repeat(30)}\n${'b'.repeat(30)}`, 40)).toEqual([
      'a'.repeat(30),
      'b'.repeat(30),
    ]);
    expect(chunk_reply(`One two three. Four five six seven eight nine`, 30)).toEqual([
      'One two three.',
      'Four five six seven eight nine',
    ]);
    expect(chunk_reply('alpha beta gamma delta epsilon zeta eta', 20)).toEqual([
      'alpha beta gamma',
      'delta epsilon zeta',
      'eta',
    ]);
  });

  it('cuts a word longer than the limit, never inside a surrogate pair', () => {
    const chunks = chunk_reply('😀'.repeat(20), 17);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(17);
      expect(chunk).not.toMatch(/[\ud800-\udbff]$/);
    }
    expect(chunks.join('')).toBe('😀'.repeat(20));
  });

  it('ignores a paragraph break that would leave a tiny chunk', () => {
    const text = `Hi.\n\n${'word '.repeat(30)}`;
    const chunks = chunk_reply(text, 80);
    expect(chunks[0]?.startsWith('Hi.\n\nword')).toBe(true);
  });

  it('closes a code fence it must split and reopens it with its language', () => {
    const code = Array.from({ length: 30 }, (_, index) => `  line_${index}();`).join('\n');
    const text = `Here is the code:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThat is all.`;
    const chunks = chunk_reply(text, 120);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(120);
      expect(fences_balanced(chunk), chunk).toBe(true);
    }
    expect(chunks.slice(1, -1).every((chunk) => chunk.startsWith('```ts\n'))).toBe(true);
    // the indentation of the code survives the cuts
    const lines = chunks.join('\n').split('\n');
    for (let index = 0; index < 30; index += 1) expect(lines).toContain(`  line_${index}();`);
    expect(chunks.at(-1)).toMatch(/That is all\.$/);
  });

  it('keeps tilde fences and longer backtick runs apart', () => {
    const body = Array.from({ length: 20 }, (_, index) => `x${index} \`\`\` not a close`).join(
      '\n',
    );
    const chunks = chunk_reply(`~~~~\n${body}\n~~~~`, 100);
    for (const chunk of chunks) {
      expect(chunk.startsWith('~~~~')).toBe(true);
      expect(chunk.endsWith('~~~~')).toBe(true);
      expect(chunk.length).toBeLessThanOrEqual(100);
    }
  });

  it('loses no word of a long text', () => {
    const words = Array.from({ length: 2000 }, (_, index) => `w${index}`);
    const text = words.join(' ').replace(/(w\d*9) /g, '$1.\n');
    const chunks = chunk_reply(text, 500);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(500);
    expect(
      chunks
        .join(' ')
        .split(/[\s.]+/)
        .filter(Boolean),
    ).toEqual(words);
  });
});
