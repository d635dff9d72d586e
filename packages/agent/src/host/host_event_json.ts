import type { HostEvent } from './session_host_types.js';

/** The event encoded last, and its text. */
let last_event: HostEvent | undefined;
let last_text = '';

/**
 * The JSON text of a host event, shared while the event is being published: the host hands an
 * event to its ring (which measures it) and then to every subscriber synchronously, so a wire
 * surface (`lich serve`) that encodes it for 50 clients of one session costs one
 * `JSON.stringify`, not 51. Only the newest event's text is kept, so held events (the ring's)
 * cost no text; encoding one again later (a replay) stringifies it again.
 *
 * Contract: the same as `JSON.stringify(event)`, for an event the host made (events are never
 * changed after they are published); throws as `JSON.stringify` does (a value that cannot be
 * encoded).
 */
export function host_event_json(event: HostEvent): string {
  if (event !== last_event) {
    last_text = JSON.stringify(event);
    last_event = event;
  }
  return last_text;
}
