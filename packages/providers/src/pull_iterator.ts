import type { ByteSource } from './byte_source.js';

/** Turns bytes into items; may throw (the iterator then rejects and releases the source). */
export interface ChunkDecoder<T> {
  push(bytes: Uint8Array): T[];
  end(): T[];
}

type Read = Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;

function abort_reason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

const DONE: IteratorReturnResult<void> = Object.freeze({ done: true, value: undefined });

/**
 * An async iterator that reads `source` on demand and hands out the items `decoder` makes of it.
 * It is written by hand rather than as an `async function*`: the items of one chunk are then handed
 * out with one resolved promise each instead of a generator round trip, and a chunk costs one
 * `then` instead of an extra async layer (measured in bench/src/stream.ts).
 *
 * Contract: behaves as an async generator for `for await`: items in order; the source's error or
 * the decoder's error rejects `next` once, then the iterator is done; `return()` (a `break`),
 * `throw()`, an error and an abort all release the source (cancel the web stream, or call the
 * iterator's `return` without waiting on it); an abort of `signal` rejects a pending `next` at once
 * with the signal's reason. `next` calls made while one is pending are served in order.
 */
export class PullIterator<T> implements AsyncGenerator<T, void, undefined> {
  readonly #decoder: ChunkDecoder<T>;
  readonly #signal: AbortSignal | undefined;
  readonly #read: () => Read;
  readonly #release: () => void;
  #items: T[] = [];
  #index = 0;
  #source_done = false;
  #closed = false;
  #pulling = false;
  #last_pull: Promise<IteratorResult<T, void>> | undefined;
  /**
   * Rejects the read in flight (an iterable source with a signal): set for each read, cleared when
   * it settles. A promise per read rather than `Promise.race` with one abort promise, which would
   * gain a reaction per read that holds that read's chunk until the stream ends.
   */
  #reject_read: ((reason: unknown) => void) | undefined;
  #race_abort = false;
  #remove_abort: (() => void) | undefined;

  constructor(source: ByteSource, decoder: ChunkDecoder<T>, signal?: AbortSignal) {
    this.#decoder = decoder;
    this.#signal = signal;
    if (source instanceof ReadableStream) {
      const reader = (source as ReadableStream<Uint8Array>).getReader();
      this.#read = () => reader.read() as Read;
      this.#release = () => {
        reader.cancel().catch(() => undefined);
        try {
          reader.releaseLock();
        } catch {
          // an older runtime refuses while a read is pending; the cancel above ends it anyway
        }
      };
      if (signal) {
        const on_abort = () => {
          reader.cancel(abort_reason(signal)).catch(() => undefined);
        };
        signal.addEventListener('abort', on_abort, { once: true });
        this.#remove_abort = () => signal.removeEventListener('abort', on_abort);
      }
    } else {
      const iterator = source[Symbol.asyncIterator]();
      this.#read = () => iterator.next() as Read;
      this.#release = () => {
        // Not awaited: a source stuck in `next()` would hold the caller's abort hostage.
        if (iterator.return) Promise.resolve(iterator.return()).catch(() => undefined);
      };
      if (signal) {
        this.#race_abort = true;
        const on_abort = () => this.#reject_read?.(abort_reason(signal));
        signal.addEventListener('abort', on_abort, { once: true });
        this.#remove_abort = () => signal.removeEventListener('abort', on_abort);
      }
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T, void>> {
    if (this.#index < this.#items.length) {
      const value = this.#items[this.#index++] as T;
      return Promise.resolve({ done: false, value });
    }
    if (this.#pulling) {
      // a second `next` while a read is pending: served after it, in order
      const after = () => this.next();
      return (this.#last_pull as Promise<IteratorResult<T, void>>).then(after, after);
    }
    if (this.#closed) return Promise.resolve(DONE);
    this.#pulling = true; // cleared by #pull itself, possibly before it returns its promise
    const pulling = this.#pull();
    this.#last_pull = pulling;
    return pulling;
  }

  /** Reads until the decoder yields an item or the source ends; clears `#pulling` when settled. */
  #pull(): Promise<IteratorResult<T, void>> {
    const signal = this.#signal;
    if (signal?.aborted) return this.#fail(abort_reason(signal));
    if (this.#source_done) {
      this.#pulling = false;
      this.#close();
      return Promise.resolve(DONE);
    }
    let read: Read;
    try {
      read = this.#read();
    } catch (error) {
      return this.#fail(error);
    }
    const raced = this.#race_abort ? this.#abortable(read) : read;
    return raced.then(this.#on_read, this.#on_error);
  }

  /** `read`, or the signal's reason as soon as it fires while `read` is pending. */
  #abortable(read: Read): Read {
    return new Promise((resolve, reject) => {
      this.#reject_read = reject;
      read.then(
        (result) => {
          this.#reject_read = undefined;
          resolve(result);
        },
        (error: unknown) => {
          this.#reject_read = undefined;
          reject(error);
        },
      );
    });
  }

  readonly #on_read = (
    result: { done: true; value?: undefined } | { done: false; value: Uint8Array },
  ): IteratorResult<T, void> | Promise<IteratorResult<T, void>> => {
    const signal = this.#signal;
    if (signal?.aborted) return this.#fail(abort_reason(signal));
    try {
      if (result.done) {
        this.#source_done = true;
        this.#items = this.#decoder.end();
      } else {
        this.#items = this.#decoder.push(result.value);
      }
    } catch (error) {
      return this.#fail(error);
    }
    this.#index = 0;
    if (this.#items.length > 0) {
      this.#pulling = false;
      return { done: false, value: this.#items[this.#index++] as T };
    }
    return this.#pull();
  };

  readonly #on_error = (error: unknown): Promise<never> => this.#fail(error);

  #fail(error: unknown): Promise<never> {
    this.#pulling = false;
    this.#close();
    return Promise.reject(error);
  }

  /** Ends the iteration and lets go of the source (cancelling it unless it ended). Idempotent. */
  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#items = [];
    this.#index = 0;
    this.#remove_abort?.();
    this.#release();
  }

  async return(): Promise<IteratorResult<T, void>> {
    this.#close();
    return DONE;
  }

  async throw(error: unknown): Promise<IteratorResult<T, void>> {
    this.#close();
    throw error;
  }
}
