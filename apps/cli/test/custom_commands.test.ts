import type { ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LichClient, stdio_transport } from '@lich/serve/client';
import type { FakeServer } from '@lich/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BIN,
  openai_env,
  request_body,
  run_lich,
  type Sandbox,
  sandbox_and_server_each,
  session_files,
} from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;
const children: ChildProcess[] = [];

sandbox_and_server_each((made) => ({ sandbox, server } = made));

afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(sandbox.work_dir, path)), { recursive: true });
  await writeFile(join(sandbox.work_dir, path), text);
}

type Body = { messages: { role: string; content: string }[] };

/** A team's commands, each in its own dialect, as they keep them. */
async function team_commands(): Promise<void> {
  await put(
    '.claude/commands/review.md',
    '---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $ARGUMENTS against @STYLE.md.\n',
  );
  await put(
    '.gemini/commands/frontend/component.toml',
    'description = "Scaffold a component"\nprompt = "Create a component named {{args}}."\n',
  );
  await put('STYLE.md', 'Short functions.\n');
}

describe('custom commands on every surface', () => {
  it('lich chat runs a Claude-style command with $ARGUMENTS and @file, and a Gemini TOML one with {{args}}', async () => {
    await team_commands();
    server.enqueue({ text: 'Reviewed.' }, { text: 'Created.' });
    const result = await run_lich(['chat'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
      input: '/review src/a.ts\n/frontend:component UserCard\n',
    });
    expect(result.code).toBe(0);
    const review = request_body<Body>(server, 0).messages.at(-1)?.content ?? '';
    expect(review).toContain('Review src/a.ts against STYLE.md.');
    expect(review).toContain('<file path="STYLE.md">\nShort functions.\n</file>');
    const component = request_body<Body>(server, 1).messages.at(-1)?.content;
    expect(component).toBe('Create a component named UserCard.');
  });

  it('the one-shot runs a named command: its prompt goes to the model, a plain command answers, other text is text', async () => {
    await team_commands();
    server.enqueue({ text: 'Reviewed.' }, { text: 'Cleaned.' });
    const run = (args: string[], input?: string) =>
      run_lich(args, {
        cwd: sandbox.work_dir,
        env: openai_env(sandbox, server.base_url),
        ...(input === undefined ? {} : { input }),
      });
    const review = await run(['/review', 'src/a.ts']);
    expect(review.code).toBe(0);
    expect(review.stdout).toBe('Reviewed.\n');
    const sent = request_body<Body>(server, 0).messages.at(-1)?.content ?? '';
    expect(sent).toContain('Review src/a.ts against STYLE.md.');
    expect(sent).toContain('<file path="STYLE.md">');
    // a command that only answers: its output is the answer, and no session is left for it
    const sessions = await session_files(sandbox.work_dir);
    const help = await run(['/help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^\/review <file> {2}Review a file$/m);
    expect(await session_files(sandbox.work_dir)).toEqual(sessions);
    const listed = JSON.parse((await run(['--json', '/help'])).stdout);
    expect(listed).toMatchObject({ stopped_reason: 'final', turns_used: 0 });
    expect(listed.answer).toContain('/frontend:component');
    // a slash that names no command is text for the model
    const text = await run(['/tmp is full, what now?']);
    expect(text.stdout).toBe('Cleaned.\n');
    expect(request_body<Body>(server, 1).messages.at(-1)?.content).toBe('/tmp is full, what now?');
    expect(server.requests).toHaveLength(2);
  });

  it("lich serve lists them in commands.list, and command.run hands back the command's prompt", async () => {
    await team_commands();
    const client = await LichClient.connect({
      transport: stdio_transport({
        command: process.execPath,
        args: [BIN, 'serve', '--stdio'],
        cwd: sandbox.work_dir,
        env: openai_env(sandbox, server.base_url),
        stderr: 'ignore',
        on_spawn: (child) => children.push(child),
      }),
      reconnect: false,
    });
    try {
      const { session_id } = await client.request('session.new', {});
      const { commands } = await client.request('commands.list', { session_id });
      expect(commands).toEqual(
        expect.arrayContaining([
          { name: 'review', description: 'Review a file', argument_hint: '<file>' },
          { name: 'frontend:component', description: 'Scaffold a component' },
        ]),
      );
      const ran = await client.request('command.run', {
        session_id,
        name: 'frontend:component',
        args: 'UserCard',
      });
      expect(ran).toEqual({ ok: true, output: '', prompt: 'Create a component named UserCard.' });
    } finally {
      await client.close();
    }
  });

  describe("a command's model front matter", () => {
    /** Two models of the chain, and a command that names the second. */
    async function two_models(): Promise<void> {
      const provider = (model: string) => ({
        kind: 'openai_compat',
        model,
        base_url: server.base_url,
      });
      await put(
        '.lich/config.json',
        JSON.stringify({ providers: [provider('main-model'), provider('small-model')] }),
      );
      await put('.lich/commands/quick.md', '---\nmodel: small-model\n---\nQuickly: $ARGUMENTS\n');
    }
    type Sent = { model: string };

    it('lich chat runs that turn on it, and the next one on the session model', async () => {
      await two_models();
      server.enqueue({ text: 'Quick.' }, { text: 'Main.' });
      const result = await run_lich(['chat'], {
        cwd: sandbox.work_dir,
        env: sandbox.env,
        input: '/quick go\nthen\n',
      });
      expect(result.code, result.stderr).toBe(0);
      expect(request_body<Sent>(server, 0).model).toBe('small-model');
      expect(request_body<Sent>(server, 1).model).toBe('main-model');
    });

    it('lich serve hands the model back with the prompt and runs that prompt on it', async () => {
      await two_models();
      server.enqueue({ text: 'Quick.' }, { text: 'Main.' });
      const client = await LichClient.connect({
        transport: stdio_transport({
          command: process.execPath,
          args: [BIN, 'serve', '--stdio'],
          cwd: sandbox.work_dir,
          env: sandbox.env,
          stderr: 'ignore',
          on_spawn: (child) => children.push(child),
        }),
        reconnect: false,
      });
      try {
        const { session_id } = await client.request('session.new', {});
        const ran = await client.request('command.run', { session_id, name: 'quick', args: 'go' });
        expect(ran).toEqual({ ok: true, output: '', prompt: 'Quickly: go', model: 'small-model' });
        await client.request('prompt.submit', { session_id, text: ran.prompt as string });
        await until(() => server.requests.length >= 1);
        await client.request('prompt.submit', { session_id, text: 'Quickly: go' });
        await until(() => server.requests.length >= 2);
        expect(request_body<Sent>(server, 0).model).toBe('small-model');
        // the same text again, not straight after the command: the session's model
        expect(request_body<Sent>(server, 1).model).toBe('main-model');
      } finally {
        await client.close();
      }
    });
  });
});

async function until(done: () => boolean, timeout_ms = 10_000): Promise<void> {
  const end = Date.now() + timeout_ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
