/** What the stream readers accept: a web stream (a fetch body) or any async iterable of bytes. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

function abort_reason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/**
 * Iterates the chunks of `source`. An abort of `signal` rejects the pending read at once with the
 * signal's reason; ending early (break, throw, abort) cancels a web stream or returns the iterator.
 */
export async function* iterate_bytes(
  source: ByteSource,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (signal?.aborted) throw abort_reason(signal);
  if (source instanceof ReadableStream) {
    const reader = source.getReader();
    let finished = false;
    const on_abort = () => {
      reader.cancel(abort_reason(signal as AbortSignal)).catch(() => undefined);
    };
    signal?.addEventListener('abort', on_abort, { once: true });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (signal?.aborted) throw abort_reason(signal);
        if (done) {
          finished = true;
          return;
        }
        yield value;
      }
    } finally {
      signal?.removeEventListener('abort', on_abort);
      if (!finished) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  let aborted: Promise<never> | undefined;
  let remove: (() => void) | undefined;
  if (signal) {
    aborted = new Promise<never>((_, reject) => {
      const on_abort = () => reject(abort_reason(signal));
      signal.addEventListener('abort', on_abort, { once: true });
      remove = () => signal.removeEventListener('abort', on_abort);
    });
    aborted.catch(() => undefined);
  }
  try {
    for (;;) {
      const next = aborted ? await Promise.race([iterator.next(), aborted]) : await iterator.next();
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    remove?.();
    // Not awaited: a source stuck in `next()` would hold the caller's abort hostage.
    if (!finished && iterator.return) Promise.resolve(iterator.return()).catch(() => undefined);
  }
}
