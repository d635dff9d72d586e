import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, start_ollama_server, unused_port_url } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import {
  openai_env,
  request_body,
  run_lich,
  type Sandbox,
  sandbox_and_server_each,
  session_files,
} from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;

sandbox_and_server_each((made) => ({ sandbox, server } = made));

const env = () => openai_env(sandbox, server.base_url);
const run = (args: string[], extra: Partial<Parameters<typeof run_lich>[1]> = {}) =>
  run_lich(args, { cwd: sandbox.work_dir, env: env(), ...extra });

describe('failures say what to do', () => {
  it('says how long a 429 asked to wait, without "HTTP 429 429"', async () => {
    server.enqueue({ kind: 'status', status: 429, retry_after: 3600 });
    const started = Date.now();
    const result = await run(['hi']);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/429 429/);
    expect(result.stderr).toMatch(/asked to wait 1 h \(retry-after\)/);
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it('names the key variable after a 401', async () => {
    server.enqueue({ kind: 'status', status: 401, message: 'Incorrect API key provided' });
    const result = await run(['hi'], { env: { ...env(), OPENAI_API_KEY: 'sk-wrong' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/check the key in OPENAI_API_KEY/);
  });

  it('asks whether Ollama is running when nothing answers there', async () => {
    const dead = await unused_port_url();
    const result = await run(['--provider', 'ollama', 'hi'], {
      env: { ...sandbox.env, OLLAMA_HOST: dead },
      timeout_ms: 30_000,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/is Ollama running\?/);
  });
});

describe('the --json document has one shape', () => {
  it('carries turns_used, provider, model and usage on failure too', async () => {
    server.enqueue({ kind: 'status', status: 401 });
    const result = await run(['--json', 'hi']);
    expect(result.code).toBe(1);
    const document = JSON.parse(result.stdout);
    expect(document).toMatchObject({
      answer: null,
      stopped_reason: 'error',
      turns_used: 1,
      provider: 'openai_compat',
      model: 'fake-model',
      usage: { input_tokens: 0, output_tokens: 0 },
    });
    expect(typeof document.error).toBe('string');
    server.enqueue({ text: 'fine' });
    const ok = JSON.parse((await run(['--json', 'hi'])).stdout);
    expect(Object.keys(ok).sort()).toEqual(Object.keys(document).sort());
  });
});

describe('a plugin that cannot be loaded', () => {
  it('stops the task with 2 before a session is opened, said once, in the --json document too', async () => {
    await mkdir(join(sandbox.work_dir, '.lich'), { recursive: true });
    await writeFile(
      join(sandbox.work_dir, '.lich', 'config.json'),
      JSON.stringify({ plugins: ['./missing.mjs'] }),
    );
    const result = await run(['--trust', '--json', 'hi']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ answer: null, stopped_reason: 'error' });
    expect(result.stderr.match(/could not be loaded/g)).toHaveLength(1);
    expect(await session_files(sandbox.work_dir)).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('stops lich chat with 2 before the first message, said once', async () => {
    await mkdir(join(sandbox.work_dir, '.lich'), { recursive: true });
    await writeFile(
      join(sandbox.work_dir, '.lich', 'config.json'),
      JSON.stringify({ plugins: ['./missing.mjs'] }),
    );
    const result = await run(['chat', '--trust'], { input: 'first\nsecond\n' });
    expect(result.code).toBe(2);
    expect(result.stderr.match(/could not be loaded/g)).toHaveLength(1);
    expect(result.stdout).toBe('');
    expect(server.requests).toHaveLength(0);
  });
});

describe('empty answers', () => {
  it('prints no blank line and warns when the final answer is empty', async () => {
    server.enqueue({ text: '' });
    const result = await run(['hi']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/ended without an answer/);
  });

  it('fails when the grace call answers with only a tool call', async () => {
    server.enqueue(
      { tool_calls: [{ name: 'list_dir', arguments: {} }] },
      { tool_calls: [{ name: 'list_dir', arguments: {} }] },
    );
    const result = await run(['--max-turns', '1', 'look around']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/used the 1 turn allowed/);
    expect(result.stderr).toMatch(/no answer within the 1 turn allowed/);
  });
});

describe('signals', () => {
  it('exits 143 on SIGTERM without a Ctrl+C hint', async () => {
    server.enqueue({
      text: 'slow answer that takes its time',
      chunk_chars: 2,
      chunk_delay_ms: 150,
    });
    const result = await run(['write'], {
      on_spawn: (child) => {
        server.wait_for_requests(1, { timeout_ms: 10_000 }).then(
          () => setTimeout(() => child.kill('SIGTERM'), 300),
          () => child.kill('SIGKILL'),
        );
      },
    });
    expect(result.code).toBe(143);
    expect(result.stderr).not.toMatch(/Ctrl\+C/);
  });

  it('stops a piped chat on Ctrl+C with 130 instead of going on', async () => {
    server.enqueue(
      { text: 'slow answer that takes its time', chunk_chars: 2, chunk_delay_ms: 150 },
      { text: 'second' },
    );
    const result = await run(['chat'], {
      input: 'first\nsecond\n',
      on_spawn: (child) => {
        server.wait_for_requests(1, { timeout_ms: 10_000 }).then(
          () => setTimeout(() => child.kill('SIGINT'), 300),
          () => child.kill('SIGKILL'),
        );
      },
    });
    expect(result.code).toBe(130);
    expect(server.requests).toHaveLength(1);
  });
});

describe('chat slash commands', () => {
  it('handles /help, /clear, /model and an unknown command locally, and /exit leaves', async () => {
    const ollama = await start_ollama_server();
    try {
      server.enqueue({ text: 'one' }, { text: 'two' });
      const result = await run(['chat'], {
        input: '/help\nfirst\n/clear\n/nosuch\n/model\nsecond\n/exit\nnever sent\n',
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('one\ntwo\n');
      expect(result.stderr).toMatch(/\/compact/);
      expect(result.stderr).toMatch(/unknown command \/nosuch/);
      expect(result.stderr).toMatch(/model: openai_compat\/fake-model/i);
      expect(server.requests).toHaveLength(2);
      const second = request_body(server, 1);
      expect(second.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
        'second',
      ]);
    } finally {
      await ollama.close();
    }
  });

  it('runs the slash commands a plugin adds and /sessions from the shared registry', async () => {
    await mkdir(join(sandbox.work_dir, '.lich'), { recursive: true });
    await writeFile(
      join(sandbox.work_dir, '.lich', 'config.json'),
      JSON.stringify({ plugins: ['./deploy.mjs'] }),
    );
    await writeFile(
      join(sandbox.work_dir, 'deploy.mjs'),
      `export default { name: 'deploy', register(api) {
        api.register_command({
          name: 'deploy',
          description: 'Ship it.',
          argument_hint: '<env>',
          run: (args, context) => 'deployed ' + args + ' from session ' + context.session_id,
        });
      } };\n`,
    );
    server.enqueue({ text: 'one' });
    // the plugin is in the project's file: it loads in a trusted folder
    const result = await run(['chat', '--trust'], {
      input: 'first\n/help\n/deploy prod\n/sessions\n/quit\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('one\n');
    expect(result.stderr).toMatch(/\/deploy <env> {2}Ship it\./);
    expect(result.stderr).toMatch(/\/sessions/);
    const id = /deployed prod from session (\S+)/.exec(result.stderr)?.[1];
    expect(id).toMatch(/^\d{8}/);
    // /sessions lists the chat's own session file, marked live
    expect(result.stderr).toMatch(new RegExp(`${id}  \\S+ \\S+  \\(live\\) first`));
    expect(server.requests).toHaveLength(1);
  });
});
