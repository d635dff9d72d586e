import { chmod, mkdir, writeFile } from 'node:fs/promises';
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

type Body = {
  messages: { role: string; content: string }[];
  tools?: { function: { name: string } }[];
};

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(sandbox.work_dir, path)), { recursive: true });
  await writeFile(join(sandbox.work_dir, path), text);
}

const GREETING = [
  '---',
  'name: greeting',
  'description: Greets a person in the house style. Use when asked to greet someone.',
  'allowed-tools: Bash(sh .claude/skills/greeting/scripts/greet.sh:*)',
  '---',
  '',
  '# Greeting',
  '',
  'Run `sh scripts/greet.sh <name>` from the skill folder and answer with what it prints.',
  '',
].join('\n');

describe('skills', () => {
  it('lists only the description up front, loads the body on demand, and runs its script through terminal', async () => {
    await put('.claude/skills/greeting/SKILL.md', GREETING);
    await put('.claude/skills/greeting/scripts/greet.sh', 'echo "Well met, $1!"\n');
    await chmod(join(sandbox.work_dir, '.claude/skills/greeting/scripts/greet.sh'), 0o755);
    server.enqueue(
      { tool_calls: [{ name: 'skill', arguments: { name: 'greeting' } }] },
      {
        tool_calls: [
          {
            name: 'terminal',
            arguments: { command: 'sh .claude/skills/greeting/scripts/greet.sh Ada' },
          },
        ],
      },
      { text: 'Well met, Ada!' },
    );
    const result = await run_lich(['greet Ada'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Well met, Ada!');
    const first = request_body<Body>(server, 0);
    const system = first.messages[0]?.content ?? '';
    expect(system).toContain('- greeting: Greets a person in the house style.');
    expect(system).not.toContain('from the skill folder');
    expect(first.tools?.map((tool) => tool.function.name)).toContain('skill');
    const second = request_body<Body>(server, 1);
    const loaded = second.messages.at(-1)?.content ?? '';
    expect(loaded).toContain('Folder: .claude/skills/greeting');
    expect(loaded).toContain('Files: scripts/greet.sh');
    expect(loaded).toContain('from the skill folder');
    // the folder is not trusted: the skill's allowed-tools grant nothing
    expect(loaded).not.toContain('Allowed without asking');
    const third = request_body<Body>(server, 2);
    expect(third.messages.at(-1)?.content).toContain('Well met, Ada!');
    // the system prompt is the same on every turn (prompt caching)
    expect(third.messages[0]?.content).toBe(system);
  });

  it('lich skills list shows what was found and from where, and names a malformed file', async () => {
    await put('.agents/skills/greeting/SKILL.md', GREETING);
    await put('.lich/skills/broken/SKILL.md', '---\ndescription: [oops\n---\n');
    await mkdir(join(sandbox.xdg, 'lich', 'skills', 'mine'), { recursive: true });
    await writeFile(
      join(sandbox.xdg, 'lich', 'skills', 'mine', 'SKILL.md'),
      '---\nname: mine\ndescription: My own skill.\n---\nbody\n',
    );
    const result = await run_lich(['skills', 'list'], {
      cwd: sandbox.work_dir,
      env: sandbox.env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /greeting {2}\(project: .*\.agents\/skills\/greeting\/SKILL\.md\)/,
    );
    expect(result.stdout).toMatch(/mine {2}\(user: .*lich\/skills\/mine\/SKILL\.md\)/);
    expect(result.stdout).toMatch(/warning: skill .*\.lich\/skills\/broken\/SKILL\.md was skipped/);
  });
});
