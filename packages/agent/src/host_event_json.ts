import type { HostEvent } from './session_host_types.js';

const ENCODED = new WeakMap<HostEvent, string>();

/**
 * The JSON text of a host event, made once per event and shared: the event ring measures it, and
 * a wire surface (`lich serve`) sends it to every subscriber, so 50 clients of one session cost
 * one `JSON.stringify`, not 51.
 *
 * Contract: the same as `JSON.stringify(event)`, for an event the host made (events are never
 * changed after they are published); throws as `JSON.stringify` does (a value that cannot be
 * encoded); the text lives as long as the event does.
 */
export function host_event_json(event: HostEvent): string {
  let text = ENCODED.get(event);
  if (text === undefined) {
    text = JSON.stringify(event);
    ENCODED.set(event, text);
  }
  return text;
}
