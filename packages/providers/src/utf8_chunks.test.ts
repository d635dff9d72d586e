import { describe, expect, it } from 'vitest';
import { Utf8Chunks } from './utf8_chunks.js';

function decode_in_pieces(bytes: Uint8Array, cuts: readonly number[]): string {
  const decoder = new Utf8Chunks();
  let text = '';
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    text += decoder.decode(bytes.subarray(from, cut));
    from = cut;
  }
  return text + decoder.end();
}

describe('Utf8Chunks', () => {
  it('gives the whole text wherever the bytes are cut, characters of 1 to 4 bytes included', () => {
    const text = 'a é € 😀 z\n';
    const bytes = new TextEncoder().encode(text);
    for (let first = 0; first <= bytes.length; first++) {
      for (let second = first; second <= bytes.length; second++) {
        expect(decode_in_pieces(bytes, [first, second])).toBe(text);
      }
    }
  });

  it('drops a byte order mark at the very start only, even when it arrives in pieces', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0xef, 0xbb, 0xbf, 0x62]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(decode_in_pieces(bytes, [cut])).toBe('a\ufeffb');
    }
  });

  it('replaces invalid bytes and a character cut off at the end as one decode would', () => {
    const bytes = new Uint8Array([0x61, 0x80, 0x62, 0xff, 0x63, 0xe2, 0x82]);
    const whole = new TextDecoder().decode(bytes);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(decode_in_pieces(bytes, [cut])).toBe(whole);
    }
  });
});
