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

const run = (args: string[]) =>
  run_lich(args, { cwd: sandbox.work_dir, env: openai_env(sandbox, server.base_url) });

describe('the command grammar', () => {
  it('finds the command after options: none of these is a model task', async () => {
    const listed = await run(['-C', sandbox.work_dir, 'sessions', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toMatch(/no sessions in/);
    const init = await run(['--no-session', 'init']);
    expect(init.code).toBe(2);
    expect(init.stderr).toMatch(/unknown option '--no-session' for init/);
    const config = await run(['-m', 'x', 'config', 'get', 'providers']);
    expect(config.code).toBe(0);
    expect(JSON.parse(config.stdout)[0].model).toBe('x');
    expect(server.requests).toHaveLength(0);
  });

  it('asks about a bare word close to a command, one word or two', async () => {
    for (const argv of [['sesions', 'list'], ['sesion'], ['chats'], ['tuis']]) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toMatch(/unknown command/);
    }
    const typo = await run(['sesions', 'list']);
    expect(typo.stderr).toMatch(/did you mean 'sessions'\?/);
    expect(typo.stderr).toContain('lich run "sesions list"');
    expect(server.requests).toHaveLength(0);
  });

  it('runs a short real task and a quoted one', async () => {
    server.enqueue({ text: 'p done' }, { text: 'quoted done' });
    const short = await run(['p']);
    expect(short.code).toBe(0);
    expect(short.stdout).toBe('p done\n');
    const quoted = await run(['sessions are slow, why?']);
    expect(quoted.stdout).toBe('quoted done\n');
    const body = request_body(server, 1);
    expect(body.messages.at(-1)?.content).toBe('sessions are slow, why?');
  });

  it('reads serve options given before the command as options with values', async () => {
    // none of these values is taken for the command or a task
    const token = await run([
      '--port',
      '0',
      '--host',
      'localhost',
      '--allow-origin',
      'http://app.test',
      '--approval-mode',
      'yolo',
      'serve',
      '--print-token',
    ]);
    expect(token.stderr).toMatch(/no lich serve is running/);
    expect(token.code).toBe(1);
    const refused = await run(['--port', '0', '--host', '10.0.0.1', 'serve']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--host 10\.0\.0\.1 would expose Lich to the network/);
    expect(server.requests).toHaveLength(0);
  });

  it('starts lich --port 0 serve as lich serve --port 0', async () => {
    let listening = '';
    const result = await run_lich(['--port', '0', '--host', '127.0.0.1', 'serve'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
      on_spawn: (child) => {
        child.stderr?.on('data', (chunk: Buffer) => {
          listening += chunk.toString();
          if (/listening on ws:\/\/127\.0\.0\.1:\d+/.test(listening)) child.kill('SIGTERM');
        });
      },
    });
    expect(listening).toMatch(/listening on ws:\/\/127\.0\.0\.1:[1-9]\d*\/rpc/);
    expect(result.signal ?? result.code).not.toBe('SIGKILL');
    expect(server.requests).toHaveLength(0);
  });
});
