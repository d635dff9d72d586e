import type { ProviderResponse } from '../src/http/post_json.js';
import { NdjsonDecoder } from '../src/read_ndjson.js';
import { type SseEvent, SseParser } from '../src/sse_parser.js';

/**
 * The body's SSE events, read as a provider reads them; `stop` returns true at the event after
 * which nothing more is wanted (the rest of the body is then read off, as at a final event).
 */
export async function events_of(
  response: ProviderResponse,
  stop: (event: SseEvent) => boolean | undefined = () => false,
): Promise<SseEvent[]> {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  let stopped = false;
  await response.each_chunk((bytes) => {
    for (const event of parser.push(bytes)) {
      events.push(event);
      if (stop(event)) {
        stopped = true;
        return true;
      }
    }
    return false;
  });
  if (!stopped) events.push(...parser.end());
  return events;
}

/** The `data` of each event, up to and including `stop_at` when given. */
export async function data_of(response: ProviderResponse, stop_at?: string): Promise<string[]> {
  const events = await events_of(response, (event) => event.data === stop_at);
  return events.map((event) => event.data);
}

/** The body's NDJSON values. */
export async function lines_of(response: ProviderResponse): Promise<unknown[]> {
  const decoder = new NdjsonDecoder();
  const lines: unknown[] = [];
  await response.each_chunk((bytes) => {
    lines.push(...decoder.push(bytes));
    return false;
  });
  return [...lines, ...decoder.end()];
}
