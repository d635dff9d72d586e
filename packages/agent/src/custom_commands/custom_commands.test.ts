import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { make_temp_dir, type TempDir } from '@lich/testkit';
import { Sandbox } from '@lich/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandContext } from '../host/command_registry.js';
import { PermissionPolicy } from '../permissions/permission_policy.js';
import { custom_command_io } from './custom_command_shell.js';
import { expand_custom_command } from './expand_custom_command.js';
import { find_custom_commands } from './find_custom_commands.js';
import { custom_slash_command } from './register_custom_commands.js';

let temp: TempDir;
let work_dir: string;

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-commands-' });
  work_dir = join(temp.path, 'work');
  await mkdir(work_dir);
});
afterEach(async () => {
  await temp.cleanup();
});

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(work_dir, path)), { recursive: true });
  await writeFile(join(work_dir, path), text);
}

/** A Claude Code command, as a team keeps it in .claude/commands/. */
const REVIEW = `---
description: Review a file against the style guide
argument-hint: <file> [focus]
allowed-tools: Bash(git log:*)
---
Review $1 with a focus on $2, following @STYLE.md.

Recent history: !\`git log --oneline -1 -- $1\`

Everything asked: $ARGUMENTS
`;

/** A Gemini CLI command, as a team keeps it in .gemini/commands/. */
const COMPONENT = `description = "Scaffold a React component"
prompt = """
Create a component named {{args}} under src/components.
Conventions: @{CONVENTIONS.md}
Listing: !{ls src}
"""
`;

function io(trusted: boolean, command: Parameters<typeof custom_command_io>[0]) {
  return custom_command_io(command, {
    work_dir,
    sandbox: new Sandbox({ mode: 'off' }),
    policy: new PermissionPolicy({}, work_dir),
    mode: 'default',
    trusted,
    env_passthrough: [],
  });
}

describe('custom commands', () => {
  it('finds markdown and TOML commands, subfolders as namespaces, the nearest first', async () => {
    await put('.claude/commands/review.md', REVIEW);
    await put('.gemini/commands/frontend/component.toml', COMPONENT);
    await put('.lich/commands/review.md', '---\ndescription: Lich review\n---\nmine');
    await put('.gemini/commands/broken.toml', 'prompt = "unclosed');
    await put('config/commands/standup.md', 'Summarise yesterday.');
    const catalog = await find_custom_commands({ work_dir, config_dir: join(work_dir, 'config') });
    expect(
      catalog.commands.map((command) => [command.name, command.description, command.origin]),
    ).toEqual([
      ['review', 'Lich review', 'project'],
      ['frontend:component', 'Scaffold a React component', 'project'],
      ['standup', 'Summarise yesterday.', 'user'],
    ]);
    expect(catalog.warnings.join('\n')).toMatch(/\.claude\/commands\/review\.md is hidden/);
    expect(catalog.warnings.join('\n')).toMatch(/broken\.toml was skipped: not valid TOML/);
  });

  it('fills a Claude-style command: $ARGUMENTS, $1, @file, and an allowed !`shell` line', async () => {
    await put('.claude/commands/review.md', REVIEW);
    await put('STYLE.md', 'Short functions.\n');
    await put('src/a.ts', 'export {};\n');
    const { commands } = await find_custom_commands({ work_dir, config_dir: join(work_dir, 'x') });
    const review = commands[0]!;
    expect(review.argument_hint).toBe('<file> [focus]');
    const untrusted = await expand_custom_command(review, 'src/a.ts naming', io(false, review));
    expect(untrusted).toContain('Review src/a.ts with a focus on naming, following STYLE.md.');
    expect(untrusted).toContain('Everything asked: src/a.ts naming');
    expect(untrusted).toContain('<file path="STYLE.md">\nShort functions.\n</file>');
    expect(untrusted).toMatch(
      /\[not run: git log --oneline -1 -- 'src\/a\.ts' — this folder is not trusted/,
    );
    const trusted = await expand_custom_command(review, 'src/a.ts naming', io(true, review));
    // not a git repository: git's own complaint stands in the prompt, so the line did run
    expect(trusted).toMatch(/Recent history: (fatal|.*\[exit code)/s);
  });

  it('fills a Gemini TOML command: {{args}}, @{file} and !{shell}', async () => {
    await put('.gemini/commands/frontend/component.toml', COMPONENT);
    await put('CONVENTIONS.md', 'PascalCase names.');
    await put('src/index.ts', '');
    const { commands } = await find_custom_commands({ work_dir, config_dir: join(work_dir, 'x') });
    const component = commands[0]!;
    const text = await expand_custom_command(component, 'UserCard', io(true, component));
    expect(text).toContain('Create a component named UserCard under src/components.');
    expect(text).toContain('Conventions: PascalCase names.');
    // no allowed-tools and the default mode: the shell line waits for permission
    expect(text).toMatch(/Listing: \[not run: ls src — not allowed/);
  });
});

describe("a command's model", () => {
  it('goes with the prompt when the config serves it, else a note says the session model runs it', async () => {
    await put('.lich/commands/quick.md', '---\nmodel: small\n---\nQuick $ARGUMENTS\n');
    await put('.lich/commands/haiku.md', '---\nmodel: haiku\n---\nPoem\n');
    const { commands } = await find_custom_commands({ work_dir, config_dir: temp.path });
    const io = {
      work_dir,
      sandbox: new Sandbox({ mode: 'off' }),
      policy: new PermissionPolicy({}, work_dir),
      mode: 'default' as const,
      trusted: true,
      env_passthrough: [],
    };
    const context = {
      models: () => [
        { provider: 'openai_compat', model: 'big', default: true },
        { provider: 'openai_compat', model: 'small', default: false },
      ],
    } as unknown as CommandContext;
    const run = (name: string, args: string) => {
      const command = commands.find((entry) => entry.name === name);
      if (command === undefined) throw new Error(`no /${name}`);
      return custom_slash_command(command, io).run(context, args);
    };
    expect(await run('quick', 'go')).toEqual({
      ok: true,
      output: '',
      prompt: 'Quick go',
      model: 'small',
    });
    expect(await run('haiku', '')).toEqual({
      ok: true,
      output:
        "/haiku names the model haiku, which no configured provider serves; it runs on the session's model",
      prompt: 'Poem',
    });
  });
});
