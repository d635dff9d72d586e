import { execFile } from 'node:child_process';
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { BIN, openai_env, type Sandbox, sandbox_and_server_each } from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;

sandbox_and_server_each((made) => ({ sandbox, server } = made));

/** Runs `lich` on a pseudo-terminal (util-linux `script`); resolves with all it wrote. */
function on_terminal(args: string[], env: Record<string, string>): Promise<string> {
  const quoted = [process.execPath, BIN, ...args].map((word) => `'${word.replace(/'/g, "'\\''")}'`);
  return new Promise((resolve, reject) => {
    execFile(
      'script',
      ['-q', '-e', '-c', quoted.join(' '), '/dev/null'],
      { cwd: sandbox.work_dir, env, timeout: 20_000 },
      (error, stdout) => (error && !stdout ? reject(error) : resolve(stdout)),
    );
  });
}

describe('on a terminal', () => {
  it('the spinner line is cleared before a warning or a retry line is written', async () => {
    server.enqueue({ kind: 'status', status: 500, delay_ms: 300 }, { text: 'fine', delay_ms: 300 });
    const output = await on_terminal(['--no-session', 'hello'], {
      ...openai_env(sandbox, server.base_url),
      TERM: 'xterm',
    });
    expect(output).toMatch(/thinking…/);
    const at = output.indexOf('retry 1 of 2');
    expect(at).toBeGreaterThan(0);
    // the spinner's line was wiped (carriage return, erase line) right before the retry line
    expect(output.slice(0, at).endsWith('\r\u001b[K')).toBe(true);
    expect(output).toMatch(/fine/);
  });
});
