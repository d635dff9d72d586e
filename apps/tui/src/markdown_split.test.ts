import { describe, expect, it } from 'vitest';
import { find_safe_split } from './markdown_split.js';

describe('find_safe_split', () => {
  it('finds no point in a single paragraph', () => {
    expect(find_safe_split('one line\nand another')).toBe(0);
    expect(find_safe_split('')).toBe(0);
  });

  it('splits at the start of a paragraph that follows a blank line', () => {
    const text = 'first paragraph\n\nsecond one\n';
    expect(text.slice(find_safe_split(text))).toBe('second one\n');
  });

  it('splits before a line still being written once its first character is known', () => {
    expect(find_safe_split('first\n\nsec')).toBe(7);
    expect(find_safe_split('first\n\n')).toBe(0);
    expect(find_safe_split('- a\n\n ')).toBe(0);
  });

  it('waits for the line after a blank line to begin', () => {
    expect(find_safe_split('first\n\n')).toBe(0);
  });

  it('never splits inside a code fence, however many blank lines it holds', () => {
    const text = 'intro\n\n```ts\nconst a = 1;\n\nconst b = 2;\n\nlet c;\n';
    expect(text.slice(find_safe_split(text))).toBe(
      '```ts\nconst a = 1;\n\nconst b = 2;\n\nlet c;\n',
    );
  });

  it('splits after a closed fence', () => {
    const text = '```\ncode\n\nmore\n```\nafter\n';
    expect(text.slice(find_safe_split(text))).toBe('after\n');
    const tilde = '~~~~\n```\n\nx\n~~~~\n\nnext\n';
    expect(tilde.slice(find_safe_split(tilde))).toBe('next\n');
  });

  it('a shorter or different closing mark does not close the fence', () => {
    const text = '````\n```\n\nstill code\n';
    expect(find_safe_split(text)).toBe(0);
  });

  it('does not split before an indented line (a list continuation or indented code)', () => {
    expect(find_safe_split('- item\n\n  continued\n')).toBe(0);
    const text = '- item\n\n  continued\n\nnext\n';
    expect(text.slice(find_safe_split(text))).toBe('next\n');
  });
});
