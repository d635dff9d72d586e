/** What `on_interrupt` installed. */
export interface Interrupt {
  /** Fires on the first Ctrl+C (SIGINT) or SIGTERM. */
  readonly signal: AbortSignal;
  /** Removes the handlers. */
  dispose(): void;
}

/**
 * Turns the first SIGINT/SIGTERM into an abort of `signal` (the run stops and ends `aborted`),
 * and a second SIGINT into an immediate exit with 130. `notice` is told about the first.
 */
export function on_interrupt(notice: (text: string) => void): Interrupt {
  const controller = new AbortController();
  const handler = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      if (name === 'SIGINT') process.exit(130);
      return;
    }
    notice('aborting… (press Ctrl+C again to quit at once)');
    controller.abort(new Error(`interrupted by ${name}`));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
