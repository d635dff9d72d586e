/** The listeners of one signal, behind the one `abort` listener the signal itself holds. */
interface Relay {
  listeners: Set<() => void>;
}

const RELAYS = new WeakMap<AbortSignal, Relay>();

/** Runs the listeners of `relay` once, in the order they came, each one even if another threw. */
function fire(relay: Relay): void {
  // Iterated live: a listener removed by an earlier one is not called, as with the signal's own.
  for (const listener of relay.listeners) {
    relay.listeners.delete(listener);
    try {
      listener();
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

/**
 * Calls `listener` once when `signal` aborts; the function returned stops that (call it when the
 * work the listener guards is over). Every watch of one signal shares a single `abort` listener on
 * it, added on the first watch and kept while the signal lives: a run's signal is watched a few
 * times per model call and tool call, and each `addEventListener`/`removeEventListener` pair on an
 * `AbortSignal` costs some hundred steps of Node's `EventTarget`, this a `Set` insertion.
 *
 * Contract: as an `{ once: true }` listener of the signal: called at most once, after the signal's
 * `aborted` and `reason` are set; not called once its watch was stopped (by an earlier listener
 * too); the same function watched twice is called once. A listener that throws does not stop the
 * others; its error is thrown again on a later tick. A signal that has already aborted is not
 * watched (nothing is called): check `signal.aborted` first. Never throws.
 */
export function watch_abort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) return () => {};
  let relay = RELAYS.get(signal);
  if (relay === undefined) {
    const created: Relay = { listeners: new Set() };
    signal.addEventListener('abort', () => fire(created), { once: true });
    RELAYS.set(signal, created);
    relay = created;
  }
  const { listeners } = relay;
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
