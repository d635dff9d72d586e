import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of the recorded streams (`tooling/testkit/fixtures/`). */
export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The path of a fixture: a name under `FIXTURES_DIR`, or an absolute path as given. */
export function fixture_path(name: string): string {
  return isAbsolute(name) ? name : `${FIXTURES_DIR}${name}`;
}

/** The bytes of a fixture. Throws when it does not exist (a mistake in the test). */
export function read_fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(fixture_path(name)));
}

/** The content type a fixture is served with, from its extension. */
export function fixture_content_type(name: string): string {
  if (name.endsWith('.ndjson')) return 'application/x-ndjson';
  if (name.endsWith('.json')) return 'application/json';
  return 'text/event-stream; charset=utf-8';
}

/** Splits bytes after each `\n`, so a replay writes one line per write. */
export function split_lines(bytes: Uint8Array): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let index = 0; index < bytes.length; index++) {
    if (bytes[index] === 10) {
      parts.push(bytes.subarray(start, index + 1));
      start = index + 1;
    }
  }
  if (start < bytes.length) parts.push(bytes.subarray(start));
  return parts;
}
