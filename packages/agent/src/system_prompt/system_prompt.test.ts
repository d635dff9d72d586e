import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { content_text } from '@lich/core';
import { fake_chat, make_temp_dir, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../agent.js';
import { make_config } from '../config/config_load.js';
import { DEFAULT_SYSTEM_PROMPT } from '../config/config_schema.js';
import { git_state, local_day, prompt_environment } from './environment.js';
import { compose_system_prompt, prompt_tokens, system_prompt_preview } from './system_prompt.js';

let temp: TempDir;

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-prompt-' });
});

afterEach(async () => {
  await temp.cleanup();
});

async function repo(branch: string | null): Promise<string> {
  const work = join(temp.path, 'repo', 'sub');
  await mkdir(join(temp.path, 'repo', '.git'), { recursive: true });
  await mkdir(work, { recursive: true });
  await writeFile(
    join(temp.path, 'repo', '.git', 'HEAD'),
    branch === null ? '0123456789abcdef0123456789abcdef01234567\n' : `ref: refs/heads/${branch}\n`,
  );
  return work;
}

/** The system prompt the model is sent on the first call of a run at `now`. */
async function first_prompt(work_dir: string, now: Date, surface?: 'chat'): Promise<string> {
  const chat = fake_chat([{ text: 'ok' }]);
  const agent = new Agent({
    config: make_config({ work_dir }),
    chat,
    lich_version: '9.9.9',
    now: () => now,
    ...(surface === undefined ? {} : { surface }),
  });
  await agent.run({ input: 'hi', session: false });
  await agent.close();
  return content_text(chat.calls[0]?.messages[0]?.content ?? '');
}

describe('the system prompt', () => {
  it('tells the platform, shell, work dir, git branch, the day, and how to use the tools', async () => {
    const work = await repo('feature/x');
    const text = await first_prompt(work, new Date(2026, 11, 5, 9, 30, 15));
    expect(text.startsWith(DEFAULT_SYSTEM_PROMPT)).toBe(true);
    expect(text).toContain('edit_file');
    expect(text).toContain('non-interactive');
    expect(text).toContain('Today: 2026-12-05.');
    expect(text).toContain(`Work dir: ${work} (a git repository, on branch feature/x)`);
    expect(text).toMatch(/Platform: (Linux|macOS|Windows|\w+); commands run in bash/);
    expect(text).toContain('terminal that renders markdown');
    // the date comes after every stable part
    expect(text.indexOf('# Using the tools')).toBeLessThan(text.indexOf('Today:'));
  });

  it('holds no value that changes within a day: the same text at 00:00:01 and 23:59:59', async () => {
    const work = await repo('main');
    const morning = await first_prompt(work, new Date(2026, 11, 5, 0, 0, 1));
    const night = await first_prompt(work, new Date(2026, 11, 5, 23, 59, 59));
    expect(night).toBe(morning);
    expect(morning).not.toMatch(/\d{1,2}:\d{2}/);
    expect(morning).not.toContain(String(process.pid));
    const tomorrow = await first_prompt(work, new Date(2026, 11, 6, 0, 0, 1));
    expect(tomorrow).not.toBe(morning);
    expect(tomorrow.replace('2026-12-06', '2026-12-05')).toBe(morning);
  });

  it('stays under ~1,000 tokens without AGENTS.md, and says how answers look on a chat platform', async () => {
    const environment = prompt_environment({ work_dir: await repo(null) });
    for (const surface of ['terminal', 'chat', 'editor', 'api'] as const) {
      const { tokens } = system_prompt_preview(
        { system_prompt: DEFAULT_SYSTEM_PROMPT, work_dir: '/w' },
        { is_default: true, surface },
        environment,
      );
      expect(tokens).toBeLessThanOrEqual(1_000);
    }
    expect(environment.git).toEqual({ branch: null });
    const chat = await first_prompt(join(temp.path), new Date(2026, 0, 2), 'chat');
    expect(chat).toContain('chat platform');
    expect(chat).toContain('not a git repository');
  });

  it('keeps a prompt the user wrote as theirs: only the environment is added, before the append', () => {
    const text = compose_system_prompt({
      base: 'You are a pirate.',
      lich_text: false,
      surface: 'terminal',
      instructions: '# Project instructions\n\nrules',
      append: 'APPENDED',
      environment: prompt_environment({ work_dir: temp.path, now: new Date(2026, 0, 2) }),
    });
    expect(text.startsWith('You are a pirate.\n\n# Project instructions')).toBe(true);
    expect(text).not.toContain('# Using the tools');
    expect(text.endsWith('Today: 2026-01-02.\n\nAPPENDED')).toBe(true);
    expect(prompt_tokens('abcdefgh')).toBe(2);
    expect(local_day(new Date(2026, 2, 9, 23, 0))).toBe('2026-03-09');
    expect(git_state('/')).toBeNull();
  });
});
