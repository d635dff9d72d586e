import { EXIT } from './exit_codes.js';

/** What `on_interrupt` installed. */
export interface Interrupt {
  /** Fires on the first Ctrl+C (SIGINT) or SIGTERM. */
  readonly signal: AbortSignal;
  /** The signal that fired it, once one has. */
  readonly received: NodeJS.Signals | undefined;
  /** The exit code for the signal received: 130 for SIGINT, 143 for SIGTERM. */
  readonly exit_code: number;
  /** Removes the handlers. */
  dispose(): void;
}

/** The conventional exit code after `signal`: 128 + its number. */
export function signal_exit_code(signal: NodeJS.Signals | undefined): number {
  return signal === 'SIGTERM' ? EXIT.TERMINATED : EXIT.ABORTED;
}

/**
 * Turns the first SIGINT/SIGTERM into an abort of `signal` (the run stops and ends `aborted`).
 * After a first Ctrl+C, `notice` is told to press it again to quit at once, and a second SIGINT
 * exits with 130; a SIGTERM stops quietly (the run still ends `aborted`, the caller exits with
 * 143), and a second one exits with 143 at once.
 */
export function on_interrupt(notice: (text: string) => void): Interrupt {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const handler = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      process.exit(signal_exit_code(name));
    }
    received = name;
    if (name === 'SIGINT') notice('aborting… (press Ctrl+C again to quit at once)');
    controller.abort(new Error(`interrupted by ${name}`));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    get exit_code() {
      return signal_exit_code(received);
    },
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
