import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { AbortLike } from './abort_hub.js';
import type { HeaderLookup } from './response_headers.js';
import type { ProviderErrorContext } from './to_provider_error.js';
import { cut_error } from './to_provider_error.js';

/**
 * The body as sent, or decoded when the server compressed it although nothing asked for that
 * (`gzip`, `deflate`, `br`, leniently at a truncated end, as undici decodes). An encoding Node
 * cannot undo is handed on as sent, as undici does.
 */
async function decoded(opened: Opened): Promise<AsyncIterable<Uint8Array>> {
  const { response } = opened;
  const codings = (opened.headers.get('content-encoding') ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  if (codings.length === 0) return response;
  const zlib = await import('node:zlib');
  const { pipeline } = await import('node:stream');
  const sync = zlib.constants.Z_SYNC_FLUSH;
  const stages = [];
  for (const coding of codings) {
    if (coding === 'gzip' || coding === 'x-gzip') {
      stages.push(zlib.createGunzip({ flush: sync, finishFlush: sync }));
    } else if (coding === 'deflate') {
      stages.push(zlib.createInflate({ flush: sync, finishFlush: sync }));
    } else if (coding === 'br') {
      const flush = zlib.constants.BROTLI_OPERATION_FLUSH;
      stages.push(zlib.createBrotliDecompress({ flush, finishFlush: flush }));
    } else {
      return response;
    }
  }
  // an error anywhere destroys every stage, the last with that error, which its iterator rethrows
  pipeline([response, ...stages], () => undefined);
  return stages[stages.length - 1] as AsyncIterable<Uint8Array>;
}

/** One request whose answer's headers arrived. */
export interface Opened {
  outgoing: ClientRequest;
  response: IncomingMessage;
  /** The answer's headers, read from its raw list (Node's `headers` object is never made). */
  headers: HeaderLookup;
  /** The socket error that broke the connection after the headers, when there was one. */
  late_error(): unknown;
  /** Stops listening to the signal (the exchange is over). */
  detach(): void;
  /** Set by `release()`: leaving the body early reads the rest off instead of closing. */
  released: boolean;
  /** Called once the body is done with: ended (the socket free again) or its connection closed. */
  settled(): void;
  /** Whether `settled` was called. */
  is_settled: boolean;
}

/**
 * How long a released answer may take to end before its connection is closed instead. A server
 * ends the body right after the final event; one that keeps it open costs this much once per call.
 */
const RELEASE_WAIT_MS = 100;

/** Settles `opened` once Node has handed its socket back to the agent, a tick after 'end'. */
function settle_after_end(opened: Opened): void {
  setImmediate(() => opened.settled());
}

/**
 * The deadline of a released answer's rest: the function returned says the rest ended or broke
 * (settling `opened` once, however often it is called); without it, the connection is closed
 * after `RELEASE_WAIT_MS`.
 */
function release_deadline(opened: Opened): () => void {
  let pending = true;
  const timer = setTimeout(() => {
    pending = false;
    opened.outgoing.destroy();
    opened.settled();
  }, RELEASE_WAIT_MS);
  timer.unref();
  return () => {
    if (!pending) return;
    pending = false;
    clearTimeout(timer);
    settle_after_end(opened);
  };
}

/**
 * Reads off the rest of an answer whose caller has left, so the socket goes back to the agent;
 * closes the connection when the rest takes longer than `RELEASE_WAIT_MS`.
 */
function read_off(opened: Opened): void {
  const { response } = opened;
  response.on('error', () => undefined);
  if (response.readableEnded) {
    settle_after_end(opened);
    return;
  }
  const done = release_deadline(opened);
  response.once('end', done);
  response.once('close', done);
  response.resume();
}

/**
 * The body's chunks. A break (the peer closed, a reset) is a `stream` error; leaving before the end
 * (return, an error, an abort) destroys the request and its socket, which unread bytes make
 * useless for another request, unless the caller released the answer first (then the rest is
 * read off). Read to its end, the socket goes back to the agent.
 */
export async function* body_chunks(
  opened: Opened,
  context: ProviderErrorContext,
  signal: AbortLike,
): AsyncGenerator<Uint8Array, void, undefined> {
  let finished = false;
  let failed = false;
  const source = await decoded(opened);
  // leaving the loop must not destroy the response by itself: `finally` decides
  const chunks =
    source === opened.response ? opened.response.iterator({ destroyOnReturn: false }) : source;
  try {
    for await (const chunk of chunks) yield chunk;
    finished = true;
  } catch (error) {
    failed = true;
    throw cut_error(opened.late_error() ?? error, context);
  } finally {
    opened.detach();
    if (!finished) {
      const reusable = opened.released && !failed && !signal.aborted && source === opened.response;
      if (reusable) read_off(opened);
      else {
        opened.outgoing.destroy();
        opened.settled();
      }
    } else {
      settle_after_end(opened);
    }
  }
}

/**
 * Reads the body push-style: `on_chunk` is called from the stream's `'data'` events, with no async
 * iteration between the socket and the caller (each layer of `for await` cost 5–20 µs a chunk).
 * Returning `true` from `on_chunk` says the caller has what it needs: the body is left as
 * `body_chunks` leaves it (read off when released, else the connection closed).
 *
 * Contract: resolves once the body ended or `on_chunk` returned `true`; rejects with what
 * `on_chunk` threw, unchanged; with a `stream` error when the connection broke; with the signal's
 * reason at once when `signal` fires. In every failure the connection is closed; `on_chunk` is
 * never called after the promise settled.
 */
export async function push_body(
  opened: Opened,
  context: ProviderErrorContext,
  signal: AbortLike,
  on_chunk: (chunk: Uint8Array) => boolean,
): Promise<void> {
  const { response } = opened;
  // most answers are not compressed: no await before the first chunk then
  const source = (
    opened.headers.get('content-encoding') === null ? response : await decoded(opened)
  ) as Readable;
  return new Promise<void>((resolve, reject) => {
    // The four listeners stay on the answer to its end: once the promise settled they only swallow
    // what the stream still says, or read off the rest of a released answer (taking them off and
    // putting others on cost more than the rest of a chunk's way).
    let over = false;
    /** Set while the rest of a released answer is read off: says it ended or broke. */
    let drained: (() => void) | undefined;
    const finish = (ended: boolean, failure?: { error: unknown }) => {
      if (over) return;
      over = true;
      signal.removeEventListener('abort', on_abort);
      opened.detach();
      if (ended) settle_after_end(opened);
      else if (
        opened.released &&
        failure === undefined &&
        !signal.aborted &&
        source === opened.response
      ) {
        // read off the rest, so the socket goes back to the agent; closed if it takes too long
        drained = release_deadline(opened);
      } else {
        source.pause();
        opened.outgoing.destroy();
        opened.settled();
      }
      if (failure === undefined) resolve();
      else reject(failure.error);
    };
    const on_data = (chunk: Uint8Array) => {
      if (over) return;
      let stop: boolean;
      try {
        stop = on_chunk(chunk);
      } catch (error) {
        finish(false, { error });
        return;
      }
      if (stop) finish(false);
    };
    const on_end = () => {
      if (over) drained?.();
      else finish(true);
    };
    const broke = (error: unknown) => {
      if (over) drained?.();
      else finish(false, { error: cut_error(opened.late_error() ?? error, context) });
    };
    const on_error = (error: unknown) => broke(error);
    // a stream destroyed without an error (the socket closed before the end)
    const on_close = () => broke(new Error('Premature close'));
    const on_abort = () => finish(false, { error: signal.reason });
    if (signal.aborted) {
      on_abort();
      return;
    }
    if (source.destroyed) {
      // broke before the first read: nothing more will be emitted
      broke(source.errored ?? new Error('Premature close'));
      return;
    }
    signal.addEventListener('abort', on_abort, { once: true });
    source.on('error', on_error);
    source.on('close', on_close);
    source.on('end', on_end);
    source.on('data', on_data);
  });
}
