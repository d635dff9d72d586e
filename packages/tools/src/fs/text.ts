/** How much of a file's start is looked at to tell text from binary. */
export const BINARY_SAMPLE_BYTES = 8_192;

/**
 * Whether `sample` (the start of a file) looks like binary data: it holds a NUL byte, or more than
 * a tenth of it is control characters other than tab, newlines, form feed, backspace and escape.
 * UTF-8 and Latin-1 text both count as text.
 *
 * Contract: never throws; an empty sample is text.
 */
export function looks_binary(sample: Uint8Array): boolean {
  if (sample.length === 0) return false;
  if (sample.includes(0)) return true;
  let control = 0;
  // indexed, not `for…of`: an iterator step per byte costs more than the test, before V8 warms up
  for (let index = 0; index < sample.length; index++) {
    const byte = sample[index] as number;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) {
      if (byte !== 0x08 && byte !== 0x1b) control += 1;
    }
  }
  return control * 10 > sample.length;
}

/**
 * Decodes `bytes` as strict UTF-8, keeping a byte order mark as the text's first character so the
 * text can be written back byte for byte. Returns undefined when the bytes are not valid UTF-8.
 */
export function decode_utf8_exact(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
