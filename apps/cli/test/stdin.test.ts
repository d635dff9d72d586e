import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import {
  openai_env,
  request_body,
  run_lich,
  type Sandbox,
  sandbox_and_server_each,
} from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;

sandbox_and_server_each((made) => ({ sandbox, server } = made));

const run = (args: string[], extra: Partial<Parameters<typeof run_lich>[1]> = {}) =>
  run_lich(args, { cwd: sandbox.work_dir, env: openai_env(sandbox, server.base_url), ...extra });

describe('stdin', () => {
  it('a pipe left open and never written: waits briefly, then runs the task with a warning', async () => {
    server.enqueue({ text: 'done' });
    const started = Date.now();
    const result = await run(['--no-session', 'say done'], {
      open_stdin: true,
      env: { ...openai_env(sandbox, server.base_url), LICH_STDIN_WAIT_MS: '300' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('done\n');
    expect(result.stderr).toMatch(/stdin is an open pipe but nothing came within 0\.3 s/);
    expect(result.stderr).toMatch(/< \/dev\/null/);
    expect(Date.now() - started).toBeLessThan(10_000);
    const body = request_body(server, 0);
    expect(body.messages.at(-1)?.content).toBe('say done');
  });

  it('binary stdin is described, not pasted into the prompt', async () => {
    server.enqueue({ text: 'ok' });
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2]);
    const result = await run(['--no-session', 'what is this?'], { input: binary });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/stdin looks like binary data \(14 B\)/);
    const prompt = request_body(server, 0).messages.at(-1)?.content ?? '';
    expect(prompt).toContain('(binary data, 14 B, not shown)');
    expect(prompt).not.toContain('PNG');
    const alone = await run(['--no-session'], { input: binary });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/stdin holds binary data/);
  });
});
