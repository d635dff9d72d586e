import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** The letters of a pairing code: no 0/O, 1/I, so a code read aloud or off a phone is unambiguous. */
export const PAIRING_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** Characters in a pairing code. */
export const PAIRING_CODE_LENGTH = 8;

/** A new pairing code: `PAIRING_CODE_LENGTH` characters of `PAIRING_ALPHABET`, from a CSPRNG. */
export function new_pairing_code(): string {
  let code = '';
  for (let index = 0; index < PAIRING_CODE_LENGTH; index += 1) {
    code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  }
  return code;
}

/** A code as a person typed it: upper-cased, spaces and dashes dropped (`abcd-efgh` → `ABCDEFGH`). */
export function normalize_pairing_code(text: string): string {
  return text.toUpperCase().replace(/[\s-]+/g, '');
}

/** A code as it is stored: a random salt and the SHA-256 of salt and code (the code never is). */
export interface HashedCode {
  salt: string;
  hash: string;
}

function digest(salt: string, code: string): Buffer {
  return createHash('sha256').update(salt).update(code).digest();
}

/** Hashes `code` under a fresh salt. */
export function hash_pairing_code(code: string): HashedCode {
  const salt = randomBytes(16).toString('hex');
  return { salt, hash: digest(salt, code).toString('hex') };
}

/** True when `code` is the one `stored` was made from; compares in constant time. */
export function pairing_code_matches(stored: HashedCode, code: string): boolean {
  const expected = Buffer.from(stored.hash, 'hex');
  const actual = digest(stored.salt, code);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
