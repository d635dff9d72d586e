/**
 * What kind of picture some bytes are, and how large, read from their header alone: PNG, JPEG,
 * GIF and WebP, the four formats every vision API takes. No decoder, no dependency.
 */

/** The media type and pixel size of a picture. */
export interface ImageInfo {
  media_type: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  width: number;
  height: number;
}

/**
 * Reads the media type and size of the picture in `bytes`.
 *
 * Contract: never throws; `undefined` when the bytes are not a PNG, JPEG, GIF or WebP picture
 * whose size can be read from its header (a truncated or foreign file).
 */
export function image_info(bytes: Uint8Array): ImageInfo | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = (offset: number, text: string): boolean =>
    bytes.length >= offset + text.length &&
    [...text].every((char, index) => bytes[offset + index] === char.charCodeAt(0));
  try {
    if (bytes.length >= 24 && bytes[0] === 0x89 && at(1, 'PNG') && at(12, 'IHDR')) {
      return { media_type: 'image/png', width: view.getUint32(16), height: view.getUint32(20) };
    }
    if (at(0, 'GIF8') && bytes.length >= 10) {
      return {
        media_type: 'image/gif',
        width: view.getUint16(6, true),
        height: view.getUint16(8, true),
      };
    }
    if (at(0, 'RIFF') && at(8, 'WEBP')) return webp_info(bytes, view);
    if (bytes[0] === 0xff && bytes[1] === 0xd8) return jpeg_info(bytes, view);
  } catch {
    // a header cut short: not a picture this can read
  }
  return undefined;
}

function webp_info(bytes: Uint8Array, view: DataView): ImageInfo | undefined {
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  if (chunk === 'VP8X') {
    const width = 1 + (view.getUint16(24, true) | (view.getUint8(26) << 16));
    const height = 1 + (view.getUint16(27, true) | (view.getUint8(29) << 16));
    return { media_type: 'image/webp', width, height };
  }
  if (chunk === 'VP8 ') {
    return {
      media_type: 'image/webp',
      width: view.getUint16(26, true) & 0x3fff,
      height: view.getUint16(28, true) & 0x3fff,
    };
  }
  if (chunk === 'VP8L') {
    const bits = view.getUint32(21, true);
    return {
      media_type: 'image/webp',
      width: (bits & 0x3fff) + 1,
      height: ((bits >> 14) & 0x3fff) + 1,
    };
  }
  return undefined;
}

function jpeg_info(bytes: Uint8Array, view: DataView): ImageInfo | undefined {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = view.getUint8(offset + 1);
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    const length = view.getUint16(offset + 2);
    // start-of-frame markers (not DHT c4, JPG c8, DAC cc) carry the size
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return {
        media_type: 'image/jpeg',
        height: view.getUint16(offset + 5),
        width: view.getUint16(offset + 7),
      };
    }
    offset += 2 + length;
  }
  return undefined;
}
