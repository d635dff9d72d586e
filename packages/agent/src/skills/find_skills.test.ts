import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { make_temp_dir, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { lich_permission_rules } from './claude_tool_names.js';
import { find_skills } from './find_skills.js';
import { skills_prompt } from './skill_tool.js';

let temp: TempDir;

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-skills-' });
});
afterEach(async () => {
  await temp.cleanup();
});

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(temp.path, path)), { recursive: true });
  await writeFile(join(temp.path, path), text);
}

function skill(name: string, description: string, extra = ''): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n\nBody of ${name}.\n`;
}

describe('find_skills', () => {
  it('looks from the work dir up to the repository root, then the user folder and imports; the nearest wins', async () => {
    await put('repo/.git/HEAD', 'ref: refs/heads/main\n');
    await put('repo/.claude/skills/deploy/SKILL.md', skill('deploy', 'Root deploy.'));
    await put('repo/.agents/skills/lint/SKILL.md', skill('lint', 'Root lint.'));
    await put('repo/app/.lich/skills/deploy/SKILL.md', skill('deploy', 'App deploy.'));
    await put('repo/app/.claude/skills/lint/SKILL.md', skill('lint', 'App lint.'));
    await put('config/lich/skills/notes/SKILL.md', skill('notes', 'My notes.'));
    await put('config/lich/skills/lint/SKILL.md', skill('lint', 'User lint.'));
    await put('home/.claude/skills/review/SKILL.md', skill('review', 'Claude review.'));
    await put('home/.codex/skills/ignored/SKILL.md', skill('ignored', 'Not imported.'));
    const catalog = await find_skills({
      work_dir: join(temp.path, 'repo', 'app'),
      config_dir: join(temp.path, 'config', 'lich'),
      imports: ['claude'],
      home: join(temp.path, 'home'),
    });
    expect(catalog.skills.map((found) => [found.name, found.description, found.scope])).toEqual([
      ['deploy', 'App deploy.', 'project'],
      ['lint', 'App lint.', 'project'],
      ['notes', 'My notes.', 'user'],
      ['review', 'Claude review.', 'import'],
    ]);
    expect(catalog.warnings.join('\n')).toMatch(
      /repo\/\.claude\/skills\/deploy\/SKILL\.md is hidden/,
    );
  });

  it('lists skills in code-unit order, never through a locale collator', async () => {
    await put('.agents/skills/beta/SKILL.md', skill('beta', 'B.'));
    await put('.agents/skills/a-b/SKILL.md', skill('a-b', 'AB.'));
    await put('.agents/skills/ab/SKILL.md', skill('ab', 'Ab.'));
    // the first localeCompare of a process builds ICU's collator: some 15 ms before a first request
    const compare = vi.spyOn(String.prototype, 'localeCompare');
    try {
      const { skills } = await find_skills({
        work_dir: temp.path,
        config_dir: join(temp.path, 'none'),
      });
      expect(skills.map((found) => found.name)).toEqual(['a-b', 'ab', 'beta']);
      expect(compare).not.toHaveBeenCalled();
    } finally {
      compare.mockRestore();
    }
  });

  it('warns about a malformed SKILL.md, naming the file, and keeps the others', async () => {
    await put('.agents/skills/good/SKILL.md', skill('good', 'Works.'));
    await put(
      '.agents/skills/bad-yaml/SKILL.md',
      '---\nname: [unclosed\ndescription: x\n---\nbody',
    );
    await put('.agents/skills/open/SKILL.md', '---\nname: open\ndescription: never closed\n');
    await put('.agents/skills/nodesc/SKILL.md', '---\nname: nodesc\n---\nbody');
    const catalog = await find_skills({ work_dir: temp.path, config_dir: join(temp.path, 'none') });
    expect(catalog.skills.map((found) => found.name)).toEqual(['good']);
    const text = catalog.warnings.join('\n');
    expect(text).toMatch(/bad-yaml\/SKILL\.md was skipped: the front matter is not valid YAML/);
    expect(text).toMatch(/open\/SKILL\.md was skipped: .* never closed/);
    expect(text).toMatch(/nodesc\/SKILL\.md was skipped: .* no description/);
  });

  it('reads allowed-tools in either dialect and maps Claude names to rules', async () => {
    await put(
      '.claude/skills/a/SKILL.md',
      skill('a', 'A.', 'allowed-tools: Read, Grep, Bash(git diff:*)\n'),
    );
    await put('.agents/skills/b/SKILL.md', skill('b', 'B.', 'allowed-tools: Bash(git:*) Read\n'));
    const { skills } = await find_skills({ work_dir: temp.path, config_dir: join(temp.path, 'x') });
    expect(skills.map((found) => found.allowed_tools)).toEqual([
      ['Read', 'Grep', 'Bash(git diff:*)'],
      ['Bash(git:*)', 'Read'],
    ]);
    expect(lich_permission_rules('Bash(git diff:*)')).toEqual([
      'terminal(git diff*)',
      'run_tests(git diff*)',
    ]);
    expect(lich_permission_rules('Read')).toEqual(['read_file']);
  });

  it('puts only names and descriptions in the prompt, the same text every time', async () => {
    await put('.agents/skills/pdf/SKILL.md', skill('pdf', 'Fill PDF forms.'));
    const { skills } = await find_skills({ work_dir: temp.path, config_dir: join(temp.path, 'x') });
    const prompt = skills_prompt(skills, true);
    expect(prompt).toContain('- pdf: Fill PDF forms.');
    expect(prompt).not.toContain('Body of pdf');
    expect(skills_prompt(skills, true)).toBe(prompt);
  });
});
