import type { AbortLike } from './abort_hub.js';
import type { JsonBytes } from './json_bytes.js';
import type { HeaderLookup } from './response_headers.js';

/** One JSON POST as `post_json` hands it to a transport. */
export interface HttpRequest {
  url: string;
  /** Every header to send, `content-type` included. */
  headers: Record<string, string>;
  /** The JSON body's bytes (`content-length` is their length). */
  body: JsonBytes;
  /**
   * Ends the exchange when it fires, wherever it is: connecting, sending, waiting for the headers
   * or reading the body. The connection is closed, never handed to another request.
   */
  signal: AbortLike;
  /** Named in the errors the transport makes itself. */
  provider: string;
  model: string;
}

/** An answer whose status line and headers arrived; its body is still to be read. */
export interface HttpExchange {
  status: number;
  /** The reason phrase (`Too Many Requests`), `''` when the server sent none. */
  status_text: string;
  /** The headers as `Headers.get` reads them. */
  headers: HeaderLookup;
  /** Every header as a `Headers`, made on the first call where making one is costly. */
  all_headers(): Headers;
  /**
   * The body's chunks, read once. `return()` before the end lets go of the connection (closed,
   * since unread bytes are left on it).
   */
  body: AsyncIterator<Uint8Array, void, undefined>;
  /**
   * The body read push-style instead of through `body` (use one or the other): `on_chunk` gets each
   * chunk as it arrives and returns `true` once the caller needs no more, which leaves the body as
   * `body.return()` does (read off after `release()`, else the connection closed). Resolves at the
   * end of the body or after that `true`; rejects with what `on_chunk` threw, unchanged, or as
   * `body.next()` would. Optional: without it, callers iterate `body`.
   */
  each_chunk?(on_chunk: (chunk: Uint8Array) => boolean): Promise<void>;
  /**
   * Says the caller has what it needs (the stream's final event came), before it leaves the body
   * with `return()`: the rest of the body is then read off, so the connection can serve the next
   * request, and closed if the rest does not come promptly. Without it, leaving early closes the
   * connection. Resolves once the body has ended and the connection is free (or was closed, after
   * a short wait), which takes a few ticks; the caller awaits it after leaving the body. Optional:
   * a transport without it closes.
   */
  release?(): Promise<void>;
}

/**
 * Sends one request and resolves once the answer's headers arrived, whatever the status.
 *
 * Contract: rejects (and the body's `next` rejects) either with a `ProviderError` of kind
 * `network` (no connection, or it broke before the headers) or `stream` (it broke mid-body), or
 * with an error `to_provider_error` maps (undici's `fetch failed` and `terminated`, an
 * `AbortError`). An abort of `request.signal` rejects at once; the caller reads its reason off the
 * signal.
 */
export type Transport = (request: HttpRequest) => Promise<HttpExchange>;
