import { AbortHub } from './abort_hub.js';
import type { HttpExchange, Transport } from './http_exchange.js';

/** The chunks of a web stream; leaving early cancels it. Errors come out as the stream gives them. */
async function* web_stream_chunks(
  body: ReadableStream<Uint8Array> | null,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (body === null) return;
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const result = await reader.read();
      if (result.done) {
        finished = true;
        return;
      }
      yield result.value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * A `Transport` over a `fetch` (the one a caller gave `post_json`). Its failures are undici's own
 * (`fetch failed`, `terminated`, an `AbortError`), which `to_provider_error` maps.
 */
export function fetch_transport(fetch_fn: typeof globalThis.fetch): Transport {
  return async (request): Promise<HttpExchange> => {
    const response = await fetch_fn(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body.joined(),
      signal: AbortHub.signal_of(request.signal),
    });
    return {
      status: response.status,
      status_text: response.statusText,
      headers: response.headers,
      all_headers: () => response.headers,
      body: web_stream_chunks(response.body),
    };
  };
}
