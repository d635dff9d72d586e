import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { read_fixture } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { read_sse } from './read_sse.js';
import type { SseEvent } from './sse_parser.js';
import { StreamParseError } from './stream_parse_error.js';

const encoder = new TextEncoder();

async function* chunks_of(parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? encoder.encode(part) : part;
}

function split_every(bytes: Uint8Array, size: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += size)
    parts.push(bytes.subarray(start, start + size));
  return parts;
}

async function collect(parts: Array<string | Uint8Array>, strict = true): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of read_sse(chunks_of(parts), { strict })) events.push(event);
  return events;
}

const SAMPLE =
  '\uFEFF: comment\nevent: greeting\nid: 7\ndata: héllo 🙂\ndata:  two\r\n\r\ndata:x\rretry: 1500\r\rdata: [DONE]\n\ndata:\n\nevent: lonely\n\ndata: last one';

const EXPECTED: SseEvent[] = [
  { event: 'greeting', data: 'héllo 🙂\n two', id: '7', retry: undefined },
  { event: 'message', data: 'x', id: '7', retry: 1500 },
  { event: 'message', data: '[DONE]', id: '7', retry: undefined },
  { event: 'message', data: '', id: '7', retry: undefined },
  { event: 'message', data: 'last one', id: '7', retry: undefined },
];

describe('read_sse', () => {
  it('parses fields, comments, line ends, BOM and a final event without a blank line', async () => {
    expect(await collect([SAMPLE])).toEqual(EXPECTED);
  });

  it('gives the same events however the bytes are split (lines, CRLF and UTF-8 cut anywhere)', async () => {
    const bytes = encoder.encode(SAMPLE);
    for (let size = 1; size <= 9; size++) {
      expect(await collect(split_every(bytes, size))).toEqual(EXPECTED);
    }
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(await collect([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(EXPECTED);
    }
  });

  it('joins a CR at the end of one chunk with the LF starting the next', async () => {
    const events = await collect(['data: a\r', '\ndata: b\r', '\n\r', '\n']);
    expect(events.map((event) => event.data)).toEqual(['a\nb']);
  });

  it('reports comments, keeps ids without NUL and ignores a bad retry', async () => {
    const comments: string[] = [];
    const events: SseEvent[] = [];
    const source = chunks_of([
      ': OPENROUTER PROCESSING\n\nid: 1\ndata: a\n\nid: x\u0000y\nretry: soon\ndata: b\n\n',
    ]);
    for await (const event of read_sse(source, { on_comment: (text) => comments.push(text) })) {
      events.push(event);
    }
    expect(comments).toEqual(['OPENROUTER PROCESSING']);
    expect(events).toEqual([
      { event: 'message', data: 'a', id: '1', retry: undefined },
      { event: 'message', data: 'b', id: '1', retry: undefined },
    ]);
  });

  it('throws a StreamParseError with the line for a field that is not SSE (strict)', async () => {
    const error = await collect(['data: {"a":1}\n\n<!DOCTYPE html>\n<html>\n']).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StreamParseError);
    expect((error as StreamParseError).line_number).toBe(3);
    expect((error as Error).message).toBe(
      "not an event stream: unknown field '<!DOCTYPE html>' (line 3: '<!DOCTYPE html>')",
    );
    expect(await collect(['weird: x\ndata: ok\n\n'], false)).toEqual([
      { event: 'message', data: 'ok', id: undefined, retry: undefined },
    ]);
  });

  it('refuses an event over the size limit, even one that never ends', async () => {
    const huge = (async function* () {
      for (let index = 0; index < 100; index++) yield encoder.encode('x'.repeat(1000));
    })();
    const reading = (async () => {
      for await (const _ of read_sse(huge, { max_event_chars: 10_000 })) {
        // nothing completes
      }
    })();
    await expect(reading).rejects.toThrow(/over 10000 characters/);
    const many_lines = chunks_of([`${'data: 0123456789\n'.repeat(2000)}\n`]);
    await expect(
      (async () => {
        for await (const _ of read_sse(many_lines, { max_event_chars: 5_000 })) {
          // one giant event
        }
      })(),
    ).rejects.toBeInstanceOf(StreamParseError);
  });

  it('reads a web ReadableStream and cancels it when the loop breaks early', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('data: one\n\ndata: two\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of read_sse(stream)) {
      expect(event.data).toBe('one');
      break;
    }
    expect(cancelled).toBe(true);
  });

  it('serves next() calls made while one is pending in order, and ends cleanly', async () => {
    const iterator = read_sse(chunks_of(['data: on', 'e\n\ndata: two\n\n']));
    const [first, second, third] = await Promise.all([
      iterator.next(),
      iterator.next(),
      iterator.next(),
    ]);
    expect(first.value?.data).toBe('one');
    expect(second.value?.data).toBe('two');
    expect(third.done).toBe(true);
    expect((await iterator.next()).done).toBe(true);
    expect((await iterator.return(undefined)).done).toBe(true);
    await expect(read_sse(chunks_of([])).throw(new Error('stop'))).rejects.toThrow('stop');
  });

  it('rethrows the source error unchanged', async () => {
    const problem = new Error('socket hang up');
    const source = (async function* () {
      yield encoder.encode('data: a\n\n');
      throw problem;
    })();
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of read_sse(source)) seen.push(event.data);
      })(),
    ).rejects.toBe(problem);
    expect(seen).toEqual(['a']);
  });

  it('rejects at once when aborted while waiting for bytes', async () => {
    const controller = new AbortController();
    const stalled = new ReadableStream<Uint8Array>({ start() {} });
    const stalled_iterable = (async function* () {
      yield encoder.encode('data: a\n\n');
      await new Promise(() => undefined);
    })();
    setTimeout(() => controller.abort(new Error('stop now')), 20);
    await expect(
      (async () => {
        for await (const _ of read_sse(stalled, { signal: controller.signal })) {
          // waits
        }
      })(),
    ).rejects.toThrow('stop now');
    const second = new AbortController();
    setTimeout(() => second.abort(new Error('stop again')), 20);
    await expect(
      (async () => {
        for await (const _ of read_sse(stalled_iterable, { signal: second.signal })) {
          // waits after the first event
        }
      })(),
    ).rejects.toThrow('stop again');
  });

  it('with a signal, lets go of each chunk once it is read (not only when the stream ends)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let first: WeakRef<Uint8Array> | undefined;
    const source = (async function* () {
      for (let index = 0; index < 50; index += 1) {
        const chunk = encoder.encode(`data: ${index}\n\n`);
        first ??= new WeakRef(chunk);
        yield chunk;
      }
    })();
    const controller = new AbortController();
    const events = read_sse(source, { signal: controller.signal });
    for (let index = 0; index < 10; index += 1) await events.next();
    // a WeakRef holds its target until the current job ends: collect on a later turn
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(first?.deref()).toBeUndefined();
    await events.return();
  });

  it('reads the recorded Anthropic stream', async () => {
    const events: SseEvent[] = [];
    for await (const event of read_sse(
      chunks_of(split_every(read_fixture('anthropic_thinking_tool_use.sse'), 13)),
    )) {
      events.push(event);
    }
    expect(events[0]?.event).toBe('message_start');
    expect(events.at(-1)?.event).toBe('message_stop');
    for (const event of events)
      expect((JSON.parse(event.data) as { type: string }).type).toBe(event.event);
  });
});
