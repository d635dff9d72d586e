import { describe, expect, it } from 'vitest';
import { HeadTailBuffer } from './output_buffer.js';

describe('HeadTailBuffer', () => {
  it('keeps everything that fits, across chunk boundaries', () => {
    const buffer = new HeadTailBuffer({ head_bytes: 4, tail_bytes: 4 });
    for (const chunk of ['ab', 'cd', 'ef']) buffer.push(chunk);
    expect(buffer.text()).toBe('abcdef');
    expect(buffer.truncated).toBe(false);
  });

  it('keeps head and tail and counts the bytes cut', () => {
    const buffer = new HeadTailBuffer({ head_bytes: 3, tail_bytes: 3 });
    for (let i = 0; i < 100; i++) buffer.push(String(i % 10));
    expect(buffer.total_bytes).toBe(100);
    expect(buffer.truncated).toBe(true);
    expect(buffer.text()).toBe('012\n[… 94 bytes of output cut …]\n789');
  });

  it('never splits a character where head meets tail or at a cut', () => {
    const joined = new HeadTailBuffer({ head_bytes: 2, tail_bytes: 8 });
    joined.push(Buffer.from('aé€')); // é straddles the head limit
    expect(joined.text()).toBe('aé€');

    const cut = new HeadTailBuffer({ head_bytes: 2, tail_bytes: 2 });
    cut.push(Buffer.from('a€€€€b€'));
    const text = cut.text();
    expect(text).not.toContain('\uFFFD');
    expect(text.startsWith('a\n')).toBe(true);
  });

  it('bounds memory whatever the input size', () => {
    const buffer = new HeadTailBuffer({ head_bytes: 10, tail_bytes: 10 });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    for (let i = 0; i < 200; i++) buffer.push(chunk);
    expect(buffer.total_bytes).toBe(200 * 64 * 1024);
    expect(buffer.text().length).toBeLessThan(80);
  });
});
