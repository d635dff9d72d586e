import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fake_chat, make_temp_dir, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent.js';
import { make_config } from '../src/config/config_load.js';

/** A project's `.claude/` as Claude Code users write it: settings.json and jq-based scripts. */
const SETTINGS = {
  hooks: {
    PreToolUse: [
      {
        matcher: 'Bash',
        hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-rm.sh' }],
      },
    ],
    PostToolUse: [
      {
        matcher: 'Edit|Write|Bash',
        hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/lint-note.sh' }],
      },
    ],
    UserPromptSubmit: [
      { hooks: [{ type: 'command', command: 'echo "Sprint goal: ship the skills."' }] },
    ],
    Stop: [
      {
        hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/tests-first.sh' }],
      },
    ],
  },
};

const SCRIPTS: Record<string, string> = {
  'no-rm.sh': [
    '#!/bin/bash',
    "cmd=$(jq -r '.tool_input.command')",
    'if [[ "$cmd" == rm* ]]; then',
    '  echo "Blocked: rm is not allowed here; move files to trash/ instead." >&2',
    '  exit 2',
    'fi',
    'exit 0',
  ].join('\n'),
  'lint-note.sh': [
    '#!/bin/bash',
    'cat > /dev/null',
    `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"Remember to run the linter."}}'`,
  ].join('\n'),
  'tests-first.sh': [
    '#!/bin/bash',
    "active=$(jq -r '.stop_hook_active')",
    'if [ "$active" = "false" ]; then',
    `  echo '{"decision":"block","reason":"Run the tests before you stop."}'`,
    'fi',
    'exit 0',
  ].join('\n'),
};

let temp: TempDir;
let work_dir: string;

async function put(path: string, text: string, mode?: number): Promise<void> {
  await mkdir(dirname(join(work_dir, path)), { recursive: true });
  await writeFile(join(work_dir, path), text);
  if (mode !== undefined) await chmod(join(work_dir, path), mode);
}

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-hooks-' });
  work_dir = join(temp.path, 'project');
  await mkdir(work_dir);
  await put('.claude/settings.json', JSON.stringify(SETTINGS, null, 2));
  for (const [name, text] of Object.entries(SCRIPTS))
    await put(`.claude/hooks/${name}`, text, 0o755);
  await put('build/out.txt', 'keep me\n');
});

afterEach(async () => {
  await temp.cleanup();
});

function script() {
  return fake_chat([
    { tool_calls: [{ id: 'c1', name: 'terminal', arguments: { command: 'rm -rf build' } }] },
    { tool_calls: [{ id: 'c2', name: 'terminal', arguments: { command: 'echo hi' } }] },
    { text: 'done' },
    { text: 'I ran the tests; they pass.' },
  ]);
}

describe('hooks in Claude Code format', () => {
  it('a .claude/settings.json copied unchanged blocks rm, adds context, and asks to go on once', async () => {
    const chat = script();
    const agent = new Agent({
      config: make_config({ work_dir, hooks: { import: ['claude'] } }),
      chat,
      trusted: true,
      on_warning: () => undefined,
    });
    const result = await agent.run({ input: 'clean up' });
    await agent.close();
    expect(chat.calls).toHaveLength(4);
    // UserPromptSubmit: context added, the prompt itself kept
    const prompt = String(chat.calls[0]?.messages.at(-1)?.content);
    expect(prompt).toMatch(/^clean up\n\n<hook_context event="UserPromptSubmit">/);
    expect(prompt).toContain('Sprint goal: ship the skills.');
    // PreToolUse on Bash, exit 2: the call never ran and the model reads the hook's stderr
    const blocked = String(chat.calls[1]?.messages.at(-1)?.content);
    expect(blocked).toContain('Blocked: rm is not allowed here; move files to trash/ instead.');
    expect(await readFile(join(work_dir, 'build/out.txt'), 'utf8')).toBe('keep me\n');
    // PostToolUse: additionalContext after the output
    const after = String(chat.calls[2]?.messages.at(-1)?.content);
    expect(after).toContain('hi');
    expect(after).toContain('PostToolUse hook context: Remember to run the linter.');
    // Stop: sent back once with the reason, then let stop
    expect(chat.calls[3]?.messages.at(-1)).toEqual({
      role: 'user',
      content: 'A Stop hook asks you to go on: Run the tests before you stop.',
    });
    expect(result.outcome.final).toBe('I ran the tests; they pass.');
    // every decision is in the session
    const records = (await readFile(result.session_path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((record) => record.type === 'hook');
    expect(records.map((record) => [record.event, record.decision])).toEqual([
      ['UserPromptSubmit', 'context'],
      ['PreToolUse', 'block'],
      ['PreToolUse', 'none'],
      ['PostToolUse', 'context'],
      ['Stop', 'block'],
      ['Stop', 'none'],
    ]);
  });

  it('runs none of the repository hooks in a folder that is not trusted', async () => {
    const chat = script();
    const warnings: string[] = [];
    const agent = new Agent({
      config: make_config({ work_dir, hooks: { import: ['claude'] } }),
      chat,
      on_warning: (text) => warnings.push(text),
    });
    await agent.run({ input: 'clean up' });
    await agent.close();
    expect(chat.calls).toHaveLength(3);
    expect(String(chat.calls[0]?.messages.at(-1)?.content)).toBe('clean up');
    expect(warnings.join('\n')).toMatch(/settings\.json do not run: this folder is not trusted/);
  });

  it("reads Codex's .codex/hooks.json, of the same shape, when hooks.import names it", async () => {
    await put(
      '.codex/hooks.json',
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [
                { type: 'command', command: 'echo "codex says no" >&2; exit 2', timeout: 10 },
              ],
            },
          ],
        },
      }),
    );
    const chat = fake_chat([
      { tool_calls: [{ id: 'c1', name: 'terminal', arguments: { command: 'echo hi' } }] },
      { text: 'ok' },
    ]);
    const agent = new Agent({
      config: make_config({ work_dir, hooks: { import: ['codex'] } }),
      chat,
      trusted: true,
    });
    await agent.run({ input: 'go', session: false });
    await agent.close();
    expect(String(chat.calls[1]?.messages.at(-1)?.content)).toContain('codex says no');
  });

  it('runs SessionStart, Notification, PreCompact and SessionEnd hooks with the event on stdin', async () => {
    const record = (name: string) => ({
      hooks: [{ type: 'command' as const, command: `cat > ${name}.json` }],
    });
    const chat = fake_chat([
      { tool_calls: [{ id: 'c1', name: 'terminal', arguments: { command: 'echo hi' } }] },
      { text: 'done' },
    ]);
    const agent = new Agent({
      config: make_config({
        work_dir,
        hooks: {
          SessionStart: [{ matcher: 'startup', ...record('start') }],
          Notification: [record('notification')],
          PreCompact: [{ matcher: 'manual', ...record('compact') }],
          SessionEnd: [record('end')],
        },
      }),
      chat,
    });
    await agent.run({
      input: 'go',
      session: false,
      approval_mode: 'default',
      approver: async () => ({ option: 'allow_once' }),
    });
    await agent.compact([{ role: 'user', content: 'short' }]);
    await agent.close();
    const read = async (name: string) =>
      JSON.parse(await readFile(join(work_dir, `${name}.json`), 'utf8')) as Record<string, unknown>;
    expect(await read('start')).toMatchObject({
      hook_event_name: 'SessionStart',
      source: 'startup',
    });
    expect(await read('notification')).toMatchObject({
      hook_event_name: 'Notification',
      message: 'Lich needs your permission: terminal: echo hi',
    });
    expect(await read('compact')).toMatchObject({
      hook_event_name: 'PreCompact',
      trigger: 'manual',
    });
    expect(await read('end')).toMatchObject({ hook_event_name: 'SessionEnd', cwd: work_dir });
  });

  it("a PreToolUse hook's permissionDecision allow skips the question, ask puts it even in yolo", async () => {
    const decide = (decision: string) => ({
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [
            {
              type: 'command' as const,
              command: `cat > /dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${decision}"}}'`,
            },
          ],
        },
      ],
    });
    const touch = () =>
      fake_chat([
        { tool_calls: [{ id: 'c1', name: 'terminal', arguments: { command: 'touch ran.txt' } }] },
        { text: 'done' },
      ]);
    // default mode with nobody to ask: only the hook's allow lets the command run
    const allowing = new Agent({
      config: make_config({ work_dir, hooks: decide('allow') }),
      chat: touch(),
      on_warning: () => undefined,
    });
    await allowing.run({ input: 'go', session: false, approval_mode: 'default' });
    await allowing.close();
    expect(await readFile(join(work_dir, 'ran.txt'), 'utf8')).toBe('');
    await rm(join(work_dir, 'ran.txt'));

    const asked: string[] = [];
    const asking = new Agent({
      config: make_config({ work_dir, hooks: decide('ask') }),
      chat: touch(),
      on_warning: () => undefined,
    });
    await asking.run({
      input: 'go',
      session: false,
      approval_mode: 'yolo',
      approver: async (request) => {
        asked.push(request.title);
        return { option: 'reject_once' };
      },
    });
    await asking.close();
    expect(asked).toEqual(['terminal: touch ran.txt']);
    await expect(readFile(join(work_dir, 'ran.txt'), 'utf8')).rejects.toThrow();
  });
});
