import { read_fixture } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { read_ndjson } from './read_ndjson.js';
import { StreamParseError } from './stream_parse_error.js';

const encoder = new TextEncoder();

async function collect(parts: Array<string | Uint8Array>): Promise<unknown[]> {
  const values: unknown[] = [];
  const source = (async function* () {
    for (const part of parts) yield typeof part === 'string' ? encoder.encode(part) : part;
  })();
  for await (const value of read_ndjson(source)) values.push(value);
  return values;
}

const SAMPLE = '{"a":"é🙂"}\r\n\n  \n{"b":[1,2]}\n{"done":true}';

describe('read_ndjson', () => {
  it('parses lines, skips blank ones, handles CRLF and a last line without newline', async () => {
    expect(await collect([SAMPLE])).toEqual([{ a: 'é🙂' }, { b: [1, 2] }, { done: true }]);
  });

  it('gives the same values however the bytes are split', async () => {
    const bytes = encoder.encode(SAMPLE);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(await collect([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual([
        { a: 'é🙂' },
        { b: [1, 2] },
        { done: true },
      ]);
    }
    const single = Array.from(bytes, (byte) => new Uint8Array([byte]));
    expect(await collect(single)).toHaveLength(3);
  });

  it('names the line that is not JSON, including a cut-off last line', async () => {
    const error = await collect(['{"ok":1}\n', 'not json at all\n']).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StreamParseError);
    expect((error as StreamParseError).line_number).toBe(2);
    expect((error as Error).message).toBe(
      "not newline-delimited JSON: a line is not JSON (line 2: 'not json at all')",
    );
    await expect(collect(['{"ok":1}\n{"message":{"content":"hal'])).rejects.toThrow(/line 2/);
  });

  it('refuses an endless line', async () => {
    const source = (async function* () {
      for (let index = 0; index < 50; index++) yield encoder.encode('x'.repeat(1000));
    })();
    await expect(
      (async () => {
        for await (const _ of read_ndjson(source, { max_line_chars: 10_000 })) {
          // never completes a line
        }
      })(),
    ).rejects.toThrow(/over 10000 characters/);
  });

  it('reads the recorded Ollama stream', async () => {
    const values = (await collect([read_fixture('ollama_thinking_tool_call.ndjson')])) as Array<{
      done: boolean;
    }>;
    expect(values).toHaveLength(5);
    expect(values.at(-1)?.done).toBe(true);
  });
});
