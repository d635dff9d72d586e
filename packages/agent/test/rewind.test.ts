import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fs_state, to_chat_result } from '@lich/testkit';
import { probe_sandbox } from '@lich/tools';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../src/agent.js';
import type { HostEvent, SessionHost } from '../src/host/session_host_types.js';
import { collector, last_user, make_host, scripted_chat } from './host_support.js';

const YOLO = { permissions: { mode: 'yolo', allow: [], ask: [], deny: [] } };

let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

function seed(work_dir: string): void {
  const write = (path: string, content: string) => {
    mkdirSync(join(work_dir, path, '..'), { recursive: true });
    writeFileSync(join(work_dir, path), content);
  };
  write('src/app.ts', 'export const greeting = "hello";\n');
  write('src/util.ts', 'export const add = (a: number, b: number) => a + b;\n');
  write('config/settings.ini', 'mode=dev\n');
  write('build/out/a.js', 'console.log(1);\n');
  write('notes/todo.txt', 'one\ntwo\n');
  write('scripts/deploy', 'echo deploying\n');
  write('obsolete.txt', 'remove me\n');
  write('.env', 'TOKEN=secret\n');
  symlinkSync('src/app.ts', join(work_dir, 'current'));
}

const TURN_COMMAND = [
  "sed -i 's/mode=dev/mode=prod/' config/settings.ini",
  'rm -rf build',
  'mv notes/todo.txt notes/done.txt',
  'chmod +x scripts/deploy',
  'ln -s config/settings.ini settings-link',
  'rm obsolete.txt',
].join(' && ');

/** The prompts of a long session, each one shell command (in place, nested, moved, removed). */
const LONG_SESSION_COMMANDS: Record<string, string> = {
  'rename the greeting': "sed -i 's/bonjour/hallo__/' src/app.ts",
  'add a library': 'mkdir -p lib/deep && printf "export {};\\n" > lib/deep/x.ts',
  'grow the new file': 'printf "// more\\n" >> src/new.ts',
  'move the library': 'mv lib/deep lib/moved && mkdir lib/deep && printf "y\\n" > lib/deep/y.ts',
  'edit inside the new folder': "sed -i 's/y/z/' lib/deep/y.ts && chmod -x scripts/deploy",
};

/**
 * The model of the test: the first prompt edits two files, creates one and runs the shell
 * commands; the second only reads; `plain` answers without tools.
 */
function model() {
  return scripted_chat((call) => {
    const last = call.messages.at(-1);
    const prompt = last_user(call);
    if (last?.role === 'tool') return `done: ${prompt}`;
    if (prompt === 'change things') {
      return to_chat_result({
        tool_calls: [
          {
            name: 'edit_file',
            arguments: { path: 'src/app.ts', old_text: '"hello"', new_text: '"bonjour"' },
          },
          {
            name: 'write_file',
            arguments: {
              path: 'src/util.ts',
              content: 'export const add = (a: number, b: number) => b + a;\n',
            },
          },
          {
            name: 'write_file',
            arguments: { path: 'src/new.ts', content: 'export const created = 1;\n' },
          },
          { name: 'terminal', arguments: { command: TURN_COMMAND } },
        ],
      });
    }
    const shell = LONG_SESSION_COMMANDS[prompt];
    if (shell !== undefined) {
      return to_chat_result({ tool_calls: [{ name: 'terminal', arguments: { command: shell } }] });
    }
    if (prompt === 'just look') {
      return to_chat_result({
        tool_calls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }],
      });
    }
    return `plain: ${prompt}`;
  });
}

async function start(options: { git?: boolean } = {}) {
  const made = await make_host(model(), { config: YOLO });
  cleanup = async () => {
    await made.host.shutdown();
    await made.temp.cleanup();
  };
  seed(made.work_dir);
  if (options.git === true) {
    execFileSync(
      'sh',
      ['-c', 'git init -q . && git add -A && git -c user.email=t@t -c user.name=t commit -qm seed'],
      {
        cwd: made.work_dir,
      },
    );
  }
  const session = await made.host.create();
  const events = collector();
  await made.host.subscribe(session.session_id, events.listener);
  return { ...made, session_id: session.session_id, events };
}

async function prompt(host: SessionHost, session_id: string, input: string): Promise<void> {
  await host.prompt(session_id, input);
  await host.idle(session_id);
}

function session_records(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe.each([
  ['without git', false],
  ['in a git repository', true],
])('rewinding a prompt that edited files and ran shell commands, %s', (_name, git) => {
  it('restores every file byte for byte, the conversation, and redoes it', async () => {
    const { host, agent, work_dir, session_id, events } = await start({ git });
    const seeded = fs_state(work_dir);
    const confined: (string | undefined)[] = [];
    agent.on((event) => {
      if (event.type === 'tool_call_end' && event.call.name === 'terminal') {
        confined.push(event.result.sandbox);
      }
    });
    await prompt(host, session_id, 'change things');
    const changed = fs_state(work_dir);
    const ends = events.of('tool.end') as Extract<HostEvent, { type: 'tool.end' }>[];
    expect(ends.every((event) => event.payload.ok)).toBe(true);
    // the shell commands ran under the OS sandbox (bubblewrap here), whose writable place is
    // the work dir and only there
    const sandbox = await probe_sandbox();
    expect(confined).toEqual([sandbox.kind ?? 'none']);
    await prompt(host, session_id, 'just look');
    await prompt(host, session_id, 'say hi');

    // the session file records the checkpoints of the prompt that changed files only
    const info = await host.get(session_id);
    const marks = session_records(info.path!).filter((record) => record.type === 'checkpoint');
    expect(marks.map((record) => [record.run, record.kind])).toEqual([
      [1, 'before_prompt'],
      [1, 'after_prompt'],
    ]);
    expect(events.of('checkpoint.created').map((event) => event.payload)).toMatchObject([
      { kind: 'before_prompt', prompt: 1 },
      { kind: 'after_prompt', prompt: 1 },
    ]);

    const points = await host.rewind_points(session_id);
    expect(
      points.map((point) => [point.prompt, point.input, point.files, point.changes.length]),
    ).toEqual([
      [1, 'change things', true, 9],
      [2, 'just look', false, 0],
      [3, 'say hi', false, 0],
    ]);
    expect(points[0]!.changes.map((change) => `${change.status} ${change.path}`)).toEqual([
      'deleted build/out/a.js',
      'modified config/settings.ini',
      'renamed notes/done.txt',
      'deleted obsolete.txt',
      'mode scripts/deploy',
      'added settings-link',
      'modified src/app.ts',
      'added src/new.ts',
      'modified src/util.ts',
    ]);
    expect(points[0]).toMatchObject({ added_lines: 4, removed_lines: 5 });

    const history_before = await host.history(session_id);
    const rewound = await host.rewind(session_id, { prompt: 1 });
    expect(rewound.status).toBe('rewound');
    expect(rewound.input).toBe('change things');
    expect(fs_state(work_dir)).toEqual(seeded);
    expect(await host.history(session_id)).toEqual([]);
    expect(await host.rewind_points(session_id)).toEqual([]);
    expect(events.of('session.rewound')).toHaveLength(1);

    const redone = await host.rewind(session_id, { redo: true });
    expect(redone.status).toBe('rewound');
    expect(fs_state(work_dir)).toEqual(changed);
    expect(await host.history(session_id)).toEqual(history_before);
    expect((await host.rewind_points(session_id)).map((point) => point.prompt)).toEqual([1, 2, 3]);
    await agent.close();
  });
});

describe('a long session, its folders watched between checkpoints', () => {
  it('records each prompt exactly, so each rewinds byte for byte', async () => {
    const { host, agent, work_dir, session_id } = await start();
    await prompt(host, session_id, 'change things');
    const states = [fs_state(work_dir)];
    for (const input of Object.keys(LONG_SESSION_COMMANDS)) {
      await prompt(host, session_id, input);
      states.push(fs_state(work_dir));
    }
    // the work dir's folders are watched (Linux): the later checkpoints read only what changed
    if (process.platform === 'linux') {
      expect(agent.checkpoint_store()!.watched_folders).toBeGreaterThan(5);
    }
    const points = await host.rewind_points(session_id);
    expect(points.map((point) => point.changes.map((c) => `${c.status} ${c.path}`))).toEqual([
      expect.any(Array),
      ['modified src/app.ts'],
      ['added lib/deep/x.ts'],
      ['modified src/new.ts'],
      ['added lib/deep/y.ts', 'renamed lib/moved/x.ts'],
      ['modified lib/deep/y.ts', 'mode scripts/deploy'],
    ]);
    // back, one prompt at a time: each leaves the files as the prompt before left them
    for (let at = states.length - 1; at >= 1; at--) {
      const rewound = await host.rewind(session_id, { prompt: at + 1 });
      expect(rewound.status).toBe('rewound');
      expect(fs_state(work_dir)).toEqual(states[at - 1]);
    }
    await agent.close();
  });
});

describe('rewinding a session', () => {
  it('reports a file the user changed since, and overwrites it only when told', async () => {
    const { host, work_dir, session_id } = await start();
    await prompt(host, session_id, 'change things');
    writeFileSync(join(work_dir, 'src/app.ts'), 'export const greeting = "mine";\n');
    const stopped = await host.rewind(session_id, { prompt: 1 });
    expect(stopped.status).toBe('conflicts');
    expect(stopped.files?.conflicts).toEqual(['src/app.ts']);
    expect(stopped.summary).toContain('src/app.ts');
    expect(readFileSync(join(work_dir, 'src/app.ts'), 'utf8')).toContain('mine');
    expect(readFileSync(join(work_dir, 'config/settings.ini'), 'utf8')).toBe('mode=prod\n');
    // nothing changed: the conversation is whole
    expect((await host.rewind_points(session_id)).length).toBe(1);

    const kept = await host.rewind(session_id, { prompt: 1, scope: 'files', on_conflict: 'keep' });
    expect(kept.status).toBe('rewound');
    expect(readFileSync(join(work_dir, 'src/app.ts'), 'utf8')).toContain('mine');
    expect(readFileSync(join(work_dir, 'config/settings.ini'), 'utf8')).toBe('mode=dev\n');
    // the conversation stays with a files-only rewind
    expect((await host.rewind_points(session_id)).length).toBe(1);
  });

  it('sees a user edit made between two prompts as a conflict', async () => {
    const { host, work_dir, session_id } = await start();
    await prompt(host, session_id, 'change things');
    writeFileSync(join(work_dir, 'scripts/deploy'), 'echo edited by hand\n');
    await prompt(host, session_id, 'change things');
    const dry = await host.rewind(session_id, { prompt: 1, dry_run: true });
    expect(dry.status).toBe('planned');
    expect(dry.files?.conflicts).toEqual(['scripts/deploy']);
  });

  it('rewinds the conversation alone, and refuses a run in flight or an unknown prompt', async () => {
    const { host, work_dir, session_id } = await start();
    await prompt(host, session_id, 'change things');
    await prompt(host, session_id, 'say hi');
    const outcome = await host.rewind(session_id, { prompt: 2, scope: 'conversation' });
    expect(outcome.conversation?.removed).toBe(2);
    expect(readFileSync(join(work_dir, 'src/app.ts'), 'utf8')).toContain('bonjour');
    expect((await host.history(session_id)).at(-1)?.content).toBe('done: change things');
    await expect(host.rewind(session_id, { prompt: 9 })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    const slow = host.prompt(session_id, 'say hi');
    await slow;
    await expect(host.rewind(session_id, { prompt: 1 })).rejects.toMatchObject({ code: 'busy' });
    await host.idle(session_id);
  });

  it('lists and rewinds through /rewind', async () => {
    const { host, work_dir, session_id } = await start();
    await prompt(host, session_id, 'change things');
    const listed = await host.run_command(session_id, 'rewind', '');
    expect(listed.output).toContain('change things');
    expect(listed.output).toMatch(/↺\s+1 .* 9 files \+4 −5/);
    const done = await host.run_command(session_id, 'rewind', '1 --files');
    expect(done).toMatchObject({ ok: true });
    expect(done.output).toContain('Rewound to before prompt 1.');
    expect(readFileSync(join(work_dir, 'config/settings.ini'), 'utf8')).toBe('mode=dev\n');
    const bad = await host.run_command(session_id, 'rewind', '--sideways');
    expect(bad.ok).toBe(false);
  });

  it('takes no checkpoint with checkpoints off, nor for a gateway-style agent', async () => {
    const made = await make_host(model(), { config: { ...YOLO, checkpoints: false } });
    cleanup = async () => {
      await made.host.shutdown();
      await made.temp.cleanup();
    };
    seed(made.work_dir);
    const { session_id } = await made.host.create();
    await prompt(made.host, session_id, 'change things');
    expect((await made.host.rewind_points(session_id))[0]?.files).toBe(false);
    await expect(made.host.rewind(session_id, { prompt: 1, scope: 'files' })).rejects.toMatchObject(
      {
        code: 'invalid_argument',
      },
    );
    expect((made.agent as Agent).checkpoint_store()).toBeNull();
  });
});
