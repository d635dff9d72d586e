import type * as ChildProcess from 'node:child_process';
import { createRequire } from 'node:module';

let loaded: typeof ChildProcess | undefined;

/**
 * `node:child_process`, loaded on the first call rather than with the package: it costs a few
 * milliseconds of every start, and many runs never spawn anything. Synchronous, so a caller
 * spawns in the same tick as before. Never throws.
 */
export function child_process_module(): typeof ChildProcess {
  loaded ??= createRequire(import.meta.url)('node:child_process') as typeof ChildProcess;
  return loaded;
}
