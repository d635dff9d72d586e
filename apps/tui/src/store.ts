/**
 * Holds the TUI's state and batches host events into frames: events that arrive within one
 * frame (about 33 ms, 30 per second) are reduced together and the screen is told once, so a fast
 * stream costs at most 30 renders a second. The person's own actions apply at once (a keystroke
 * is never held behind a frame).
 */
import type { HostEvent } from '@lich/agent';
import { initial_state, reduce } from './state.js';
import type { TuiAction, TuiState } from './state_types.js';

/** How the store is built. */
export interface StoreOptions {
  /** The shortest time between two batches of host events; 33 ms (30 fps) by default. */
  frame_ms?: number;
  now?: () => number;
  initial?: TuiState;
}

/** The TUI's state container, read by the screen through `get_state` and `subscribe`. */
export interface TuiStore {
  get_state(): TuiState;
  /** Calls `listener` after each change; returns the function that stops it. */
  subscribe(listener: () => void): () => void;
  /** Applies an action now (after any host events still held, so order is kept). */
  dispatch(action: TuiAction): void;
  /** Holds a host event for the next frame. */
  push_event(event: HostEvent): void;
  /** Applies held events now. */
  flush(): void;
  /** Stops the frame timer; held events are applied first. */
  dispose(): void;
}

/**
 * A store. Contract: listeners run after every applied change, synchronously; a listener that
 * throws does not stop the others; host events are applied in the order pushed, never dropped.
 */
export function create_store(options: StoreOptions = {}): TuiStore {
  const frame_ms = options.frame_ms ?? 33;
  const now = options.now ?? Date.now;
  let state = options.initial ?? initial_state();
  const listeners = new Set<() => void>();
  let held: TuiAction[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let last_frame = Number.NEGATIVE_INFINITY;

  const notify = () => {
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch {
        // the screen's problem; the state is still right
      }
    }
  };
  const apply_held = (): boolean => {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    if (held.length === 0) return false;
    const actions = held;
    held = [];
    state = actions.reduce(reduce, state);
    last_frame = now();
    return true;
  };

  return {
    get_state: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispatch(action) {
      apply_held();
      state = reduce(state, action);
      notify();
    },
    push_event(event) {
      held.push({ type: 'host', event, at: now() });
      if (timer !== null) return;
      const wait = Math.max(0, last_frame + frame_ms - now());
      timer = setTimeout(() => {
        if (apply_held()) notify();
      }, wait);
    },
    flush() {
      if (apply_held()) notify();
    },
    dispose() {
      if (apply_held()) notify();
      listeners.clear();
    },
  };
}
