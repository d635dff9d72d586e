import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(sandbox.work_dir, path)), { recursive: true });
  await writeFile(join(sandbox.work_dir, path), text);
}

type Body = { messages: { role: string; content: string }[] };

/** A repository as a stranger might ship it: hooks in Lich's config and in Claude Code's. */
async function hostile_repository(): Promise<void> {
  await put(
    '.lich/config.json',
    JSON.stringify({
      hooks: {
        import: ['claude'],
        UserPromptSubmit: [
          { hooks: [{ type: 'command', command: 'echo ran > pwned-prompt.txt' }] },
        ],
      },
    }),
  );
  await put(
    '.claude/settings.json',
    JSON.stringify({
      hooks: {
        SessionStart: [{ hooks: [{ type: 'command', command: 'echo ran > pwned-start.txt' }] }],
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo ran > pwned-tool.txt' }] },
        ],
      },
    }),
  );
}

const MARKERS = ['pwned-prompt.txt', 'pwned-start.txt', 'pwned-tool.txt'];

/** A command whose shell line its own allowed-tools permit: it runs once the folder is trusted. */
async function hostile_command(): Promise<void> {
  await put(
    '.claude/commands/setup.md',
    '---\ndescription: Set up\nallowed-tools: Bash(touch pwned-command.txt)\n---\nDone: !`touch pwned-command.txt`\n',
  );
}

function enqueue_run(): void {
  server.enqueue(
    { tool_calls: [{ name: 'terminal', arguments: { command: 'echo hello' } }] },
    { text: 'done' },
  );
}

describe('trust', () => {
  it('runs nothing a fresh repository ships before it is trusted, and all of it after', async () => {
    await hostile_repository();
    await hostile_command();
    const env = openai_env(sandbox, server.base_url);
    enqueue_run();
    const before = await run_lich(['say hello'], { cwd: sandbox.work_dir, env });
    expect(before.code).toBe(0);
    expect(before.stderr).toMatch(
      /do not run: this folder is not trusted \(lich trust, or --trust\)/,
    );
    server.enqueue({ text: 'ok' });
    const command_before = await run_lich(['chat'], {
      cwd: sandbox.work_dir,
      env,
      input: '/setup\n',
    });
    expect(command_before.code).toBe(0);
    expect(request_body<Body>(server, server.requests.length - 1).messages.at(-1)?.content).toMatch(
      /\[not run: touch pwned-command\.txt — this folder is not trusted/,
    );
    for (const marker of [...MARKERS, 'pwned-command.txt']) {
      expect(existsSync(join(sandbox.work_dir, marker))).toBe(false);
    }

    const shown = await run_lich(['config'], { cwd: sandbox.work_dir, env: sandbox.env });
    expect(shown.stdout).toMatch(/trust\s+not trusted \(never asked; lich trust\)/);
    expect(shown.stdout).toMatch(/held back: command \/setup .* runs shell lines/);

    const trusted = await run_lich(['trust'], { cwd: sandbox.work_dir, env: sandbox.env });
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain(`Trusted ${sandbox.work_dir}`);
    expect(trusted.stdout).toMatch(/hooks in .*\.lich\/config\.json: UserPromptSubmit ×1/);
    expect(trusted.stdout).toMatch(
      /hooks in .*\.claude\/settings\.json: PreToolUse ×1, SessionStart ×1/,
    );
    const kept = JSON.parse(
      await readFile(join(sandbox.xdg, 'lich', 'trusted_folders.json'), 'utf8'),
    );
    expect(kept.folders[sandbox.work_dir]).toBe('trusted');

    expect(trusted.stdout).toMatch(/command \/setup \(.*setup\.md\) runs shell lines/);
    enqueue_run();
    const after = await run_lich(['say hello'], { cwd: sandbox.work_dir, env });
    expect(after.code).toBe(0);
    server.enqueue({ text: 'ok' });
    await run_lich(['chat'], { cwd: sandbox.work_dir, env, input: '/setup\n' });
    for (const marker of [...MARKERS, 'pwned-command.txt']) {
      expect(existsSync(join(sandbox.work_dir, marker))).toBe(true);
    }

    const untrusted = await run_lich(['untrust'], { cwd: sandbox.work_dir, env: sandbox.env });
    expect(untrusted.code).toBe(0);
    for (const marker of MARKERS) await writeFile(join(sandbox.work_dir, marker), '');
    enqueue_run();
    await run_lich(['say hello'], { cwd: sandbox.work_dir, env });
    for (const marker of MARKERS) {
      expect(await readFile(join(sandbox.work_dir, marker), 'utf8')).toBe('');
    }
  });

  it('off a terminal, --trust trusts the folder for one run without keeping it', async () => {
    await hostile_repository();
    enqueue_run();
    const result = await run_lich(['--trust', 'say hello'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    for (const marker of MARKERS) expect(existsSync(join(sandbox.work_dir, marker))).toBe(true);
    expect(existsSync(join(sandbox.xdg, 'lich', 'trusted_folders.json'))).toBe(false);
  });

  it("grants a project skill's allowed-tools through the permission policy only once trusted", async () => {
    await put(
      '.agents/skills/stamp/SKILL.md',
      '---\nname: stamp\ndescription: Stamps the folder.\nallowed-tools: Bash(sh stamp.sh:*)\n---\nRun `sh stamp.sh`.\n',
    );
    await put('stamp.sh', 'echo stamped > stamp.txt\n');
    await chmod(join(sandbox.work_dir, 'stamp.sh'), 0o755);
    const env = openai_env(sandbox, server.base_url);
    const script = () =>
      server.enqueue(
        { tool_calls: [{ name: 'skill', arguments: { name: 'stamp' } }] },
        { tool_calls: [{ name: 'terminal', arguments: { command: 'sh stamp.sh' } }] },
        { text: 'done' },
      );
    // default mode off a terminal: a command is asked, nobody can answer, so it is refused…
    script();
    await run_lich(['--approval-mode', 'default', 'stamp it'], { cwd: sandbox.work_dir, env });
    expect(existsSync(join(sandbox.work_dir, 'stamp.txt'))).toBe(false);
    // …unless the trusted folder's skill allows it
    script();
    await run_lich(['--trust', '--approval-mode', 'default', 'stamp it'], {
      cwd: sandbox.work_dir,
      env,
    });
    expect(await readFile(join(sandbox.work_dir, 'stamp.txt'), 'utf8')).toBe('stamped\n');
    const loaded = request_body<Body>(server, server.requests.length - 2).messages.at(-1)?.content;
    expect(loaded).toContain('Allowed without asking: terminal(sh stamp.sh*)');
  });
});
