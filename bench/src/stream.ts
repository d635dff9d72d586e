/**
 * Throughput of Lich's SSE reader against `eventsource-parser` 3.1.1 on the same 20 MB stream of
 * realistic OpenAI and Anthropic events (rendered by the testkit's fake servers, multi-byte text
 * included), fed in the same chunks from the same async iterable, alternating over several
 * rounds, medians reported.
 *
 * Two chunkings: "live" (64–512 B, about one event per read, as a model streams token by token)
 * and "bulk" (1–16 KB, as when reads fall behind).
 *
 * Like is compared with like, each against a target of 1.0:
 * - `read_sse` (bytes in, an async iterator of events out) against `EventSourceParserStream`
 *   (the package's stream API, piped behind `TextDecoderStream` as with a fetch body);
 * - `SseParser#push` (bytes in, events out, synchronous) against `createParser` fed by a streaming
 *   `TextDecoder` (the package's fastest use).
 * A last pair of rows, without a target, sets `read_sse` against `createParser`: an async
 * iterator pays one microtask per event (about 70 ns) that a callback does not.
 */
import { read_sse, SseParser } from '@lich/providers';
import { type RecordedRequest, render_anthropic, render_openai } from '@lich/testkit';
import { createParser } from 'eventsource-parser';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { alternate } from './stats.js';
import type { BenchRow } from './types.js';

const TARGET_BYTES = 20 * 1024 * 1024;
const ROUNDS = 9;
const TARGET_RATIO = 1.0;

const PARAGRAPH =
  'Streaming keeps the answer moving while the model thinks. Ça marche très bien — même avec ' +
  'des caractères accentués, 日本語のテキスト, and emoji 🙂🚀 split across reads. ' +
  'The reader must never lose a byte, never duplicate a line, and never wait for more than it needs. ';

function request(stream_options: boolean): RecordedRequest {
  const body = {
    model: 'gpt-4o',
    stream: true,
    ...(stream_options ? { stream_options: { include_usage: true } } : {}),
  };
  return {
    index: 0,
    method: 'POST',
    path: '/',
    headers: {},
    body,
    raw_body: JSON.stringify(body),
    stream: true,
  };
}

/** About 20 MB of SSE: OpenAI chunk streams and Anthropic event streams, alternating. */
function build_stream(): Uint8Array {
  const reply = {
    text: PARAGRAPH.repeat(6),
    reasoning: PARAGRAPH.repeat(2),
    chunk_chars: 5,
    tool_calls: [
      { name: 'read_file', arguments: { path: 'src/index.ts', offset: 10, limit: 200 } },
    ],
  };
  const openai = render_openai(reply, {
    request: request(true),
    sequence: 1,
    reasoning_field: 'reasoning_content',
  }).parts.join('');
  const anthropic = render_anthropic(reply, {
    request: request(false),
    sequence: 2,
    reasoning_field: 'reasoning_content',
  }).parts.join('');
  const block = Buffer.from(openai + anthropic);
  const copies = Math.ceil(TARGET_BYTES / block.length);
  return new Uint8Array(Buffer.concat(Array.from({ length: copies }, () => block)));
}

/** Splits `bytes` at sizes drawn from [min, max] by a seeded generator (same cuts every run). */
function chunk(bytes: Uint8Array, min: number, max: number): Uint8Array[] {
  let seed = 0x2545f491;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x1_0000_0000;
  };
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; ) {
    const size = min + Math.floor(random() * (max - min + 1));
    chunks.push(bytes.slice(start, start + size));
    start += size;
  }
  return chunks;
}

async function* source(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const piece of chunks) yield piece;
}

interface Tally {
  events: number;
  chars: number;
}

async function run_lich(chunks: readonly Uint8Array[]): Promise<Tally> {
  const tally = { events: 0, chars: 0 };
  for await (const event of read_sse(source(chunks))) {
    tally.events += 1;
    tally.chars += event.data.length;
  }
  return tally;
}

async function run_lich_push(chunks: readonly Uint8Array[]): Promise<Tally> {
  const tally = { events: 0, chars: 0 };
  const parser = new SseParser();
  const count = (events: ReturnType<SseParser['push']>) => {
    for (const event of events) {
      tally.events += 1;
      tally.chars += event.data.length;
    }
  };
  for await (const piece of source(chunks)) count(parser.push(piece));
  count(parser.end());
  return tally;
}

async function run_parser(chunks: readonly Uint8Array[]): Promise<Tally> {
  const tally = { events: 0, chars: 0 };
  const parser = createParser({
    onEvent(event) {
      tally.events += 1;
      tally.chars += event.data.length;
    },
  });
  const decoder = new TextDecoder();
  for await (const piece of source(chunks)) parser.feed(decoder.decode(piece, { stream: true }));
  parser.feed(decoder.decode());
  return tally;
}

async function run_parser_stream(chunks: readonly Uint8Array[]): Promise<Tally> {
  const tally = { events: 0, chars: 0 };
  const stream = ReadableStream.from(source(chunks))
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  for await (const event of stream) {
    tally.events += 1;
    tally.chars += event.data.length;
  }
  return tally;
}

type Reader = (chunks: readonly Uint8Array[]) => Promise<Tally>;

async function measure(
  name: string,
  chunks: readonly Uint8Array[],
  megabytes: number,
  lich_reader: Reader,
  baseline_name: string,
  baseline: Reader,
  target: boolean,
): Promise<BenchRow> {
  const expected = await baseline(chunks);
  const got = await lich_reader(chunks);
  if (got.events !== expected.events || got.chars !== expected.chars) {
    throw new Error(
      `stream bench: lich read ${got.events} events / ${got.chars} chars, ` +
        `${baseline_name} ${expected.events} / ${expected.chars}`,
    );
  }
  const timing = await alternate(
    ROUNDS,
    async () => {
      await lich_reader(chunks);
    },
    async () => {
      await baseline(chunks);
    },
  );
  const lich = megabytes / (timing.lich_ms / 1000);
  const base = megabytes / (timing.baseline_ms / 1000);
  const ratio = lich / base;
  return {
    bench: 'stream',
    metric: `SSE ${megabytes.toFixed(0)} MB, ${expected.events} events, ${name}`,
    lich,
    baseline: base,
    baseline_name: `eventsource-parser ${baseline_name}`,
    unit: 'MB/s',
    ratio,
    ...(target ? { target: `ratio >= ${TARGET_RATIO}`, pass: ratio >= TARGET_RATIO } : {}),
  };
}

export async function run(): Promise<BenchRow[]> {
  const bytes = build_stream();
  const megabytes = bytes.length / (1024 * 1024);
  const live = chunk(bytes, 64, 512);
  const bulk = chunk(bytes, 1024, 16 * 1024);
  const rows: BenchRow[] = [];
  for (const [name, chunks] of [
    ['live 64-512 B chunks', live],
    ['bulk 1-16 KB chunks', bulk],
  ] as const) {
    rows.push(
      await measure(
        `read_sse, ${name}`,
        chunks,
        megabytes,
        run_lich,
        'EventSourceParserStream',
        run_parser_stream,
        true,
      ),
      await measure(
        `SseParser#push, ${name}`,
        chunks,
        megabytes,
        run_lich_push,
        'createParser',
        run_parser,
        true,
      ),
    );
  }
  for (const [name, chunks] of [
    ['live 64-512 B chunks', live],
    ['bulk 1-16 KB chunks', bulk],
  ] as const) {
    rows.push(
      await measure(
        `read_sse vs callbacks, ${name}`,
        chunks,
        megabytes,
        run_lich,
        'createParser',
        run_parser,
        false,
      ),
    );
  }
  return rows;
}
