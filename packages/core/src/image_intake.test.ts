import { describe, expect, it } from 'vitest';
import { image_from_base64, image_from_bytes, image_media_type } from './image_intake.js';

const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('image_media_type', () => {
  it('reads the four picture types, ignoring case and parameters; image/jpg is jpeg', () => {
    expect(image_media_type('IMAGE/PNG; q=1')).toBe('image/png');
    expect(image_media_type('image/jpg')).toBe('image/jpeg');
    expect(image_media_type('image/svg+xml')).toBeUndefined();
    expect(image_media_type('text/plain')).toBeUndefined();
  });
});

describe('image_from_base64', () => {
  it('makes an image part with the media type and size read from the bytes', () => {
    const taken = image_from_base64(TINY_PNG, {
      max_bytes: 1024,
      media_type: 'image/png',
      name: 'dot.png',
    });
    expect(taken).toEqual({
      ok: true,
      image: {
        type: 'image',
        media_type: 'image/png',
        data: TINY_PNG,
        name: 'dot.png',
        width: 1,
        height: 1,
      },
    });
  });

  it('refuses a declared type the bytes are not, a non-picture type, and non-picture bytes', () => {
    expect(image_from_base64(TINY_PNG, { max_bytes: 1024, media_type: 'image/jpeg' })).toEqual({
      ok: false,
      error: 'the picture was sent as image/jpeg but its bytes are image/png',
    });
    expect(image_from_base64(TINY_PNG, { max_bytes: 1024, media_type: 'application/pdf' })).toEqual(
      {
        ok: false,
        error:
          '"application/pdf" is not a picture type taken (image/png, image/jpeg, image/gif, image/webp)',
      },
    );
    const text = Buffer.from('hello, not a picture').toString('base64');
    expect(image_from_base64(text, { max_bytes: 1024 })).toEqual({
      ok: false,
      error: 'the bytes are not a PNG, JPEG, GIF or WebP picture',
    });
  });

  it('refuses text that is not base64, and an oversize picture before decoding it', () => {
    expect(image_from_base64('not base64!', { max_bytes: 1024 })).toEqual({
      ok: false,
      error: 'the picture data is not base64',
    });
    expect(image_from_base64('A'.repeat(4 * 1024 * 1024), { max_bytes: 1024 * 1024 })).toEqual({
      ok: false,
      error: 'the picture is 3 MB, over the limit of 1 MB',
    });
  });
});

describe('image_from_bytes', () => {
  it('refuses bytes over the cap', () => {
    const bytes = Buffer.from(TINY_PNG, 'base64');
    expect(image_from_bytes(bytes, { max_bytes: 10 })).toEqual({
      ok: false,
      error: `the picture is ${bytes.length} B, over the limit of 10 B`,
    });
  });
});
