/**
 * Finding X7: a sandboxed command has a process limit, and a runaway one ends with a clear result
 * instead of running until its timeout. The bomb is decoded at run time, where the hardline cannot
 * read it, and runs under bubblewrap with a small limit only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe_gated, sandbox_gate } from '@lich/testkit/gates';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ToolExecutor } from '../src/executor.js';
import { ToolRegistry } from '../src/registry.js';
import type { SandboxConfig } from '../src/sandbox/sandbox_config.js';
import { terminal_tool } from '../src/shell/terminal.js';

let work_dir: string;

/** Live `sleep <length>` processes on this machine. */
function sleeps_of(length: string): number {
  let count = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const [program, argument] = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (program === 'sleep' && argument === length) count += 1;
    } catch {
      // gone
    }
  }
  return count;
}

/** `:(){ :|:& };:` in base64, so no text check sees it. */
const BOMB = 'eval "$(echo OigpeyA6fDomIH07Og== | base64 -d)"';

function terminal(command: string, timeout_ms: number, sandbox: Partial<SandboxConfig> = {}) {
  const registry = new ToolRegistry();
  registry.register(terminal_tool);
  return new ToolExecutor(registry, { work_dir, sandbox }).execute('terminal', {
    command,
    timeout_ms,
  });
}

beforeAll(async () => {
  work_dir = await realpath(await mkdtemp(join(tmpdir(), 'lich-limits-')));
});

afterAll(async () => {
  await rm(work_dir, { recursive: true, force: true });
});

describe_gated([sandbox_gate()], 'the process limit under bubblewrap (X7)', () => {
  it('stops a fork bomb that keeps the command busy, with a result that says so', async () => {
    const started = Date.now();
    // `&&`: a `sleep` the full process table could not start must not let the echo run either
    const result = await terminal(`${BOMB}; sleep 60 && echo bomb-returned`, 40_000, {
      max_processes: 64,
    });
    expect(result.sandbox).toBe('bwrap');
    expect(result.ok).toBe(false);
    expect(result.output).not.toContain('bomb-returned');
    expect(result.output).toMatch(
      /\[stopped: the command kept hitting the sandbox's limit of 64 processes \(sandbox\.max_processes\); the process tree was killed\]/,
    );
    expect(result.output).toMatch(/\[sandbox\] The command ran into the limit of 64 processes/);
    // stopped within seconds of running into the limit, long before the 40 s timeout
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 60_000);

  it('counts every process of the command against the limit', async () => {
    let most = 0;
    const watching = setInterval(() => {
      most = Math.max(most, sleeps_of('7.25'));
    }, 50);
    try {
      const result = await terminal('for i in $(seq 1 40); do sleep 7.25 & done; wait', 20_000, {
        max_processes: 20,
      });
      expect(result.output).toMatch(/fork: (retry: )?Resource temporarily unavailable/);
    } finally {
      clearInterval(watching);
    }
    expect(most).toBeGreaterThan(5);
    expect(most).toBeLessThan(20);
  }, 40_000);

  it('leaves an ordinary build alone under the default limit', async () => {
    const result = await terminal(
      'for i in $(seq 1 50); do (sleep 0.2) & done; wait; echo all-done',
      20_000,
    );
    expect(result.output).toContain('all-done');
    expect(result.ok).toBe(true);
  });
});
