/** Clears what is drawn on the status line (the spinner), when something is. */
let clear_status: (() => void) | undefined;

/**
 * Registers the function that clears the spinner line, or removes it with `undefined`: warnings
 * and notes printed while a run shows progress then start on a clean line.
 */
export function set_status_clearer(clear: (() => void) | undefined): void {
  clear_status = clear;
}

/** Clears the status line before a line is written to stderr. Never throws. */
export function clear_status_line(): void {
  try {
    clear_status?.();
  } catch {
    // a status line that cannot be cleared must not stop a warning
  }
}
