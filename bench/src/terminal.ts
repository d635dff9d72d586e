/**
 * `terminal` running `true` 100 times under the sandbox (bubblewrap here) against the same tool
 * with `sandbox.mode: 'off'`, alternating call by call in one run, through the executor as the
 * agent calls it. The added time per command is the difference of the medians.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probe_sandbox, ToolExecutor, ToolRegistry, terminal_tool } from '@lich/tools';
import { alternate } from './stats.js';
import type { BenchRow } from './types.js';

const CALLS = 100;
const TARGET_MS = 15;

export async function run(): Promise<BenchRow[]> {
  const support = await probe_sandbox();
  if (support.kind === undefined) throw new Error(`no sandbox on this machine: ${support.reason}`);
  const work_dir = await realpath(await mkdtemp(join(tmpdir(), 'lich-bench-terminal-')));
  try {
    const registry = new ToolRegistry();
    registry.register(terminal_tool);
    const sandboxed = new ToolExecutor(registry, { work_dir, sandbox: { mode: 'auto' } });
    const plain = new ToolExecutor(registry, { work_dir, sandbox: { mode: 'off' } });
    const call = (executor: ToolExecutor) => async () => {
      const result = await executor.execute('terminal', { command: 'true' });
      if (!result.ok) throw new Error(`terminal true failed: ${result.output}`);
    };
    // warm both paths (module loads, the probe, the first spawn) before measuring
    for (let index = 0; index < 5; index++) {
      await call(sandboxed)();
      await call(plain)();
    }
    const { lich_ms, baseline_ms, ratio } = await alternate(CALLS, call(sandboxed), call(plain));
    const added = lich_ms - baseline_ms;
    return [
      {
        bench: 'terminal',
        metric: `true ×${CALLS}, median per call, ${support.kind}`,
        lich: lich_ms,
        baseline: baseline_ms,
        baseline_name: 'unsandboxed',
        unit: 'ms',
        ratio,
      },
      {
        bench: 'terminal',
        metric: 'sandbox time added per command',
        lich: added,
        unit: 'ms',
        target: `<= ${TARGET_MS} ms`,
        pass: added <= TARGET_MS,
      },
    ];
  } finally {
    await rm(work_dir, { recursive: true, force: true });
  }
}
