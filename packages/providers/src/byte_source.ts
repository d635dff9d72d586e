/** What the stream readers accept: a web stream (a fetch body) or any async iterable of bytes. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/**
 * Turns the bytes of a stream into items (SSE events, NDJSON values, event-stream messages):
 * `push` returns the items `bytes` completed, in order, and `end` those left at the end. Both may
 * throw (a `StreamParseError`); the reader then rejects and lets go of the source.
 */
export interface ChunkDecoder<T> {
  push(bytes: Uint8Array): T[];
  end(): T[];
}

/**
 * The items `decoder` makes of `source`, as they arrive: what `read_sse` and `read_ndjson` are.
 *
 * Contract: items in order; the source's own error is rethrown unchanged; leaving early, an error
 * and an abort let go of the source (a web stream is cancelled; an iterator's `return` is called
 * without waiting on it, since a source stuck in `next()` must not hold the abort hostage); an
 * abort of `signal` rejects a pending read at once with the signal's reason.
 */
export async function* decode_bytes<T>(
  source: ByteSource,
  decoder: ChunkDecoder<T>,
  signal?: AbortSignal,
): AsyncGenerator<T, void, undefined> {
  let next: () => Promise<IteratorResult<Uint8Array, unknown>>;
  let release: () => void;
  if (source instanceof ReadableStream) {
    const reader = (source as ReadableStream<Uint8Array>).getReader();
    next = () => reader.read() as Promise<IteratorResult<Uint8Array, unknown>>;
    release = () => void reader.cancel().catch(() => undefined);
  } else {
    const iterator = source[Symbol.asyncIterator]();
    next = () => iterator.next();
    release = () => void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
  // one promise per read, settled by the read or the abort: nothing holds a chunk once it is read
  const read = (): Promise<IteratorResult<Uint8Array, unknown>> => {
    if (signal === undefined) return next();
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const on_abort = () => reject(signal.reason);
      signal.addEventListener('abort', on_abort, { once: true });
      next()
        .then(resolve, reject)
        .finally(() => signal.removeEventListener('abort', on_abort));
    });
  };
  let finished = false;
  try {
    for (;;) {
      const result = await read();
      if (result.done) break;
      yield* decoder.push(result.value);
    }
    finished = true;
    yield* decoder.end();
  } finally {
    if (!finished) release();
  }
}
