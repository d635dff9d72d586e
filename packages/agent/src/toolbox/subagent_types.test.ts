import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { make_temp_dir, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { find_subagent_types, parse_subagent, read_front_matter } from './subagent_types.js';

let temp: TempDir;

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-agents-' });
});

afterEach(async () => {
  await temp.cleanup();
});

describe('subagent types', () => {
  it('reads front matter: plain values, quoted ones, [a, b] and - item lists', () => {
    const { fields, body } = read_front_matter(
      '---\nname: \'checker\'\ndescription: Checks things\ntools:\n  - read_file\n  - grep\nother: [a, "b"]\n---\nBody text.\n',
    );
    expect(fields).toEqual({
      name: 'checker',
      description: 'Checks things',
      tools: ['read_file', 'grep'],
      other: ['a', 'b'],
    });
    expect(body).toBe('Body text.');
    expect(read_front_matter('no front matter')).toEqual({ fields: {}, body: 'no front matter' });
  });

  it("maps Claude Code's tool names, drops model inherit, names a type by its file", () => {
    const claude = parse_subagent(
      '---\ndescription: d\ntools: Read, Grep, Bash, WebFetch\nmodel: inherit\n---\nPrompt.',
      '/x/.claude/agents/finder.md',
      true,
    );
    expect(claude).toEqual({
      name: 'finder',
      description: 'd',
      prompt: 'Prompt.',
      tools: ['read_file', 'grep', 'terminal', 'web_fetch'],
      path: '/x/.claude/agents/finder.md',
    });
    expect(parse_subagent('---\nname: empty\n---\n', '/x/empty.md')).toBeUndefined();
  });

  it('finds .lich/agents, and .claude/agents only when imported; the first of a name wins', async () => {
    await mkdir(join(temp.path, '.lich', 'agents'), { recursive: true });
    await mkdir(join(temp.path, '.claude', 'agents'), { recursive: true });
    await writeFile(
      join(temp.path, '.lich', 'agents', 'reviewer.md'),
      '---\nname: reviewer\n---\nLich review.',
    );
    await writeFile(
      join(temp.path, '.claude', 'agents', 'reviewer.md'),
      '---\nname: reviewer\n---\nClaude review.',
    );
    await writeFile(
      join(temp.path, '.claude', 'agents', 'tester.md'),
      '---\nname: tester\n---\nTest.',
    );
    const skipped: string[] = [];
    const lich_only = await find_subagent_types(temp.path);
    expect(lich_only.map((type) => type.name)).toEqual(['general', 'reviewer']);
    const both = await find_subagent_types(temp.path, {
      import_claude: true,
      on_skip: (path) => skipped.push(path),
    });
    expect(both.map((type) => type.name)).toEqual(['general', 'reviewer', 'tester']);
    expect(both.find((type) => type.name === 'reviewer')?.prompt).toBe('Lich review.');
    expect(skipped).toEqual([join(temp.path, '.claude', 'agents', 'reviewer.md')]);
  });
});
