import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect_tree, list_processes } from '../src/shell/process_list.js';
import { run_process } from '../src/shell/run_process.js';
import { printed_pids, process_gone, process_state, wait_for } from './proc_helpers.js';

const has_proc = process_state(process.pid) !== undefined;

/** Starts sleepers two levels deep and prints every pid it started. */
const NESTED =
  'sleep 100 & echo "pid=$!"; ' +
  `bash -c 'sleep 100 & echo "pid=$!"; sleep 100 & echo "pid=$!"; wait' & echo "pid=$!"; ` +
  'echo "pid=$$"; sleep 100';

function shell(command: string, extra: Partial<Parameters<typeof run_process>[0]> = {}) {
  return run_process({ file: 'bash', args: ['-c', command], cwd: tmpdir(), ...extra });
}

describe.skipIf(!has_proc)('run_process', () => {
  it('kills the whole tree on timeout, grandchildren included, and leaves nothing running', async () => {
    // long enough for the five processes to start on a loaded machine (at 1 s none had printed)
    const outcome = await shell(NESTED, { timeout_ms: 3_000 });
    expect(outcome.timed_out).toBe(true);
    expect(outcome.duration_ms).toBeLessThan(8_000);
    const pids = printed_pids(outcome.output);
    expect(pids.length).toBe(5);
    for (const pid of pids) expect(process_gone(pid)).toBe(true);
  });

  it('kills the whole tree when the signal aborts mid-command', async () => {
    const controller = new AbortController();
    const running = shell(NESTED, { signal: controller.signal });
    // wait until the five processes of NESTED are up (bash execs its last command), then remember them
    let seen: number[] = [];
    const deadline = Date.now() + 5_000;
    while (seen.length < 5 && Date.now() < deadline) {
      await wait_for(() => false, 20);
      const processes = (await list_processes()) ?? [];
      seen = processes
        .filter((entry) => entry.ppid === process.pid && entry.state !== 'Z')
        .flatMap((entry) => collect_tree(entry.pid, processes).map((member) => member.pid));
    }
    controller.abort();
    const outcome = await running;
    expect(outcome.aborted).toBe(true);
    expect(outcome.timed_out).toBe(false);
    const pids = printed_pids(outcome.output);
    expect(pids.length).toBe(5);
    for (const pid of pids) expect(seen).toContain(pid);
    for (const pid of pids) expect(process_gone(pid)).toBe(true);
  });

  it('lets no parent run its next command once the tree is killed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lich-kill-'));
    try {
      const outcome = await shell('sleep 100; touch after; (sleep 100; touch nested) & wait', {
        cwd: dir,
        timeout_ms: 300,
      });
      expect(outcome.timed_out).toBe(true);
      await wait_for(() => false, 300);
      expect(existsSync(join(dir, 'after'))).toBe(false);
      expect(existsSync(join(dir, 'nested'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('also ends a descendant that moved to a session of its own', async () => {
    const outcome = await shell('setsid sleep 100 & echo "pid=$!"; sleep 100', { timeout_ms: 500 });
    expect(outcome.timed_out).toBe(true);
    const [pid] = printed_pids(outcome.output);
    expect(pid).toBeDefined();
    expect(process_gone(pid!)).toBe(true);
  });

  it('starts nothing under an already aborted signal', async () => {
    const outcome = await shell('echo ran', { signal: AbortSignal.abort() });
    expect(outcome.aborted).toBe(true);
    expect(outcome.output).toBe('');
  });

  it('ends background jobs a command leaves behind, without waiting for them', async () => {
    const outcome = await shell('sleep 100 & echo "pid=$!"; echo done');
    expect(outcome.exit_code).toBe(0);
    expect(outcome.output).toContain('done');
    expect(outcome.duration_ms).toBeLessThan(3_000);
    const [pid] = printed_pids(outcome.output);
    expect(pid).toBeDefined();
    expect(process_gone(pid!)).toBe(true);
  });

  it('uses SIGKILL after the grace when SIGTERM is ignored', async () => {
    const outcome = await shell('trap "" TERM; sleep 100 & echo "pid=$!"; wait', {
      timeout_ms: 300,
      grace_ms: 300,
    });
    expect(outcome.timed_out).toBe(true);
    expect(outcome.duration_ms).toBeLessThan(3_000);
    for (const pid of printed_pids(outcome.output)) expect(process_gone(pid)).toBe(true);
  });

  it('reports the exit code and merges both streams', async () => {
    const outcome = await shell('echo out; echo err >&2; exit 3');
    expect(outcome.exit_code).toBe(3);
    expect(outcome.output).toContain('out');
    expect(outcome.output).toContain('err');
  });

  it('keeps head and tail of a huge output in bounded memory', async () => {
    const outcome = await shell(
      'echo START; head -c 3000000 /dev/zero | tr "\\0" a; echo; echo END',
      {
        head_bytes: 1000,
        tail_bytes: 1000,
      },
    );
    expect(outcome.truncated).toBe(true);
    expect(outcome.output_bytes).toBeGreaterThan(3_000_000);
    expect(outcome.output.startsWith('START')).toBe(true);
    expect(outcome.output.trimEnd().endsWith('END')).toBe(true);
    expect(outcome.output).toMatch(/bytes of output cut/);
    expect(outcome.output.length).toBeLessThan(2_200);
  });

  it('turns a missing program or folder into spawn_error', async () => {
    const missing = await run_process({ file: 'no-such-program-lich', args: [], cwd: tmpdir() });
    expect(missing.spawn_error).toMatch(/ENOENT/);
    const no_dir = await run_process({ file: 'bash', args: ['-c', 'true'], cwd: '/no/such/dir' });
    expect(no_dir.spawn_error).toBeDefined();
  });
});
