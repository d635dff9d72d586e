import { describe, expect, it } from 'vitest';
import { image_info } from './image_info.js';

function png(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  bytes.set(
    [...'IHDR'].map((char) => char.charCodeAt(0)),
    12,
  );
  const view = new DataView(bytes.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  return bytes;
}

function jpeg(width: number, height: number): Uint8Array {
  // SOI, an APP0 segment of 16 bytes, then SOF0 with the size
  const bytes = new Uint8Array([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0,
    16,
    ...new Array(14).fill(0),
    0xff,
    0xc0,
    0,
    17,
    8,
    0,
    0,
    0,
    0,
    3,
  ]);
  const view = new DataView(bytes.buffer);
  view.setUint16(25, height);
  view.setUint16(27, width);
  return bytes;
}

describe('image_info', () => {
  it('reads the type and size of PNG, JPEG, GIF and WebP from their headers', () => {
    expect(image_info(png(6000, 4000))).toEqual({
      media_type: 'image/png',
      width: 6000,
      height: 4000,
    });
    expect(image_info(jpeg(640, 480))).toEqual({
      media_type: 'image/jpeg',
      width: 640,
      height: 480,
    });
    const gif = new Uint8Array([...'GIF89a'].map((c) => c.charCodeAt(0)).concat([10, 0, 20, 0]));
    expect(image_info(gif)).toEqual({ media_type: 'image/gif', width: 10, height: 20 });
    const webp = new Uint8Array(30);
    webp.set(
      [...'RIFF'].map((c) => c.charCodeAt(0)),
      0,
    );
    webp.set(
      [...'WEBPVP8L'].map((c) => c.charCodeAt(0)),
      8,
    );
    new DataView(webp.buffer).setUint32(21, (99 << 14) | 199, true);
    expect(image_info(webp)).toEqual({ media_type: 'image/webp', width: 200, height: 100 });
  });

  it('says nothing of text, of a truncated header or of an empty file', () => {
    expect(image_info(new TextEncoder().encode('hello world, not a picture'))).toBeUndefined();
    expect(image_info(png(1, 1).subarray(0, 20))).toBeUndefined();
    expect(image_info(new Uint8Array([0xff, 0xd8, 0xff]))).toBeUndefined();
    expect(image_info(new Uint8Array())).toBeUndefined();
  });
});
