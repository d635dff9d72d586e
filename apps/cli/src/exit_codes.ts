/**
 * The exit codes of `lich`, chosen here and nowhere else: 0 success, 1 model or provider failure,
 * 2 usage or config error, 130 aborted (Ctrl+C), 143 terminated (SIGTERM).
 */
export const EXIT = Object.freeze({
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  ABORTED: 130,
  TERMINATED: 143,
});

/** The status `lich` exits with: one of the values of `EXIT`. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
