/** The default spacing of coalesced deltas: about 30 per second. */
export const DEFAULT_COALESCE_MS = 33;

/** Which stream a delta belongs to. */
export type DeltaKind = 'text' | 'reasoning';

interface Pending {
  kind: DeltaKind;
  turn_id: string;
  text: string;
}

/**
 * Joins a session's streamed text so listeners hear at most about one delta per `interval_ms`
 * per stream: the first piece after a quiet spell goes out at once (no added latency), the
 * pieces arriving within the next `interval_ms` go out together when it ends.
 *
 * Contract: text is never lost, reordered or duplicated; a piece of another kind or turn first
 * sends what is pending; `flush` sends what is pending now (call it before any other event of
 * the session, so order holds); `close` flushes and stops the timer. `interval_ms` 0 sends every
 * piece at once. Never throws unless `emit` does.
 */
export class DeltaCoalescer {
  readonly interval_ms: number;
  readonly #emit: (kind: DeltaKind, turn_id: string, text: string) => void;
  #pending: Pending | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(interval_ms: number, emit: (kind: DeltaKind, turn_id: string, text: string) => void) {
    this.interval_ms = Math.max(0, interval_ms);
    this.#emit = emit;
  }

  push(kind: DeltaKind, turn_id: string, text: string): void {
    if (text === '') return;
    const pending = this.#pending;
    if (pending !== null && (pending.kind !== kind || pending.turn_id !== turn_id)) this.flush();
    if (this.interval_ms === 0) {
      this.#emit(kind, turn_id, text);
      return;
    }
    if (this.#timer === null) {
      this.#emit(kind, turn_id, text);
      this.#start_window();
      return;
    }
    if (this.#pending === null) this.#pending = { kind, turn_id, text };
    else this.#pending.text += text;
  }

  #start_window(): void {
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#pending !== null) {
        this.flush();
        this.#start_window();
      }
    }, this.interval_ms);
    this.#timer.unref?.();
  }

  /** Sends what is pending now. */
  flush(): void {
    const pending = this.#pending;
    if (pending === null) return;
    this.#pending = null;
    this.#emit(pending.kind, pending.turn_id, pending.text);
  }

  /** Flushes and stops the timer. */
  close(): void {
    this.flush();
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
