/** How long a dead server waits before its next start. */

/** The first restart waits this long; each further failure in a row doubles it. */
export const RESTART_BACKOFF_BASE_MS = 200;
/** The longest wait between restarts. */
export const RESTART_BACKOFF_MAX_MS = 30_000;

/** Backoff before restart number `failures` in a row: 200 ms, 400 ms, 800 ms… up to 30 s. */
export function backoff_ms(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(RESTART_BACKOFF_MAX_MS, RESTART_BACKOFF_BASE_MS * 2 ** (failures - 1));
}
