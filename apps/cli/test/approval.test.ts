/**
 * Tool-call approval at the CLI: on a terminal (a real pty through util-linux `script`) lich asks
 * before a file edit; `--yolo` skips the question; off a terminal it runs as it always did.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, make_sandbox, openai_env, run_lich, type Sandbox } from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;

beforeEach(async () => {
  sandbox = await make_sandbox({ 'notes.txt': 'old\n' });
  server = await start_openai_server();
});

afterEach(async () => {
  await server.close();
  await sandbox.cleanup();
});

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Type `send` (and Enter) once the output shows `after`, past what earlier steps waited for. */
interface PtyStep {
  after: string;
  send: string;
}

/** Runs `lich args` on a pty, typing each step's text once its cue shows. */
function run_on_pty(
  args: readonly string[],
  steps: readonly PtyStep[],
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, BIN, ...args].map(quote).join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: sandbox.work_dir,
      env: { ...openai_env(sandbox, server.base_url), TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let from = 0;
    const pending = [...steps];
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`lich on a pty did not finish; it showed:\n${output}`));
    }, 30_000);
    const feed = () => {
      for (let step = pending[0]; step !== undefined; step = pending[0]) {
        const at = output.indexOf(step.after, from);
        if (at === -1) return;
        from = at + step.after.length;
        pending.shift();
        child.stdin.write(`${step.send}\r`);
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      feed();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.end();
      resolve({ code, output });
    });
  });
}

const ALLOW = 'allow?';

function write_then_answer(): void {
  server.enqueue(
    { tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'new\n' } }] },
    { text: 'Done.' },
  );
}

describe('approval on a terminal', () => {
  it('asks before a write; y runs it', async () => {
    write_then_answer();
    const result = await run_on_pty(['update the notes'], [{ after: ALLOW, send: 'y' }]);
    expect(result.output).toContain('write_file: notes.txt');
    expect(result.output).toContain('allow? [y]es once / [a]lways this session / [n]o');
    expect(result.code).toBe(0);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('new\n');
  });

  it('n declines it, and the model is told', async () => {
    write_then_answer();
    const result = await run_on_pty(['update the notes'], [{ after: ALLOW, send: 'n' }]);
    expect(result.code).toBe(0);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('old\n');
    const second = server.requests[1]?.body as { messages: { role: string; content: string }[] };
    expect(second.messages.at(-1)?.content).toMatch(/declined write_file: notes\.txt/);
  });

  it('--yolo runs it without asking', async () => {
    write_then_answer();
    const result = await run_on_pty(['--yolo', 'update the notes'], []);
    expect(result.output).not.toContain('allow?');
    expect(result.code).toBe(0);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('new\n');
  });

  it('a in chat allows the same call for the rest of the session', async () => {
    server.enqueue(
      { tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'one\n' } }] },
      { text: 'First.' },
      { tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'two\n' } }] },
      { text: 'Second.' },
    );
    const result = await run_on_pty(
      ['chat'],
      [
        { after: '/exit to leave', send: 'write one' },
        { after: ALLOW, send: 'a' },
        { after: 'First.', send: 'write two' },
        { after: 'Second.', send: '/exit' },
      ],
    );
    expect(result.code).toBe(0);
    expect(result.output.split(ALLOW)).toHaveLength(2);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('two\n');
  });
});

describe('approval off a terminal', () => {
  it('runs every call as before, with no question', async () => {
    write_then_answer();
    const result = await run_lich(['update the notes'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('allow?');
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('new\n');
  });

  it('--approval-mode default denies what would ask, saying how to allow it', async () => {
    write_then_answer();
    const result = await run_lich(['--approval-mode', 'default', 'update the notes'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('old\n');
    const second = server.requests[1]?.body as { messages: { role: string; content: string }[] };
    const told = second.messages.at(-1)?.content ?? '';
    expect(told).toContain('no one is here to approve it');
    expect(told).toContain('--approval-mode auto_edit');
  });

  it('refuses a bad mode', async () => {
    const result = await run_lich(['--approval-mode', 'sometimes', 'x'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--approval-mode must be one of default, auto_edit, yolo');
  });
});
