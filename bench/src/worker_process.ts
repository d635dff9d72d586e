import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';

/**
 * Forks one of the bench's worker scripts (`dist/<script>`) with `env` over this process's
 * environment and `exec_argv` as its Node options. Resolves with the child and the first IPC
 * message it sends (its "hello": ports, pids…); rejects if it fails to start or exits first.
 */
export function fork_worker(
  script: string,
  env: Record<string, string>,
  exec_argv: string[] = [],
): Promise<{ child: ChildProcess; hello: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const child = fork(join(import.meta.dirname, script), [], {
      env: { ...process.env, ...env },
      execArgv: exec_argv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (hello) => resolve({ child, hello: hello as Record<string, string> }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}
