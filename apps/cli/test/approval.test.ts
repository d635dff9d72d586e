/**
 * Tool-call approval at the CLI: on a terminal (a real pty through util-linux `script`) lich asks
 * before a file edit; `--yolo` skips the question; off a terminal it runs as it always did.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BIN,
  make_sandbox,
  openai_env,
  read_records,
  run_lich,
  type Sandbox,
  session_files,
} from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;

beforeEach(async () => {
  sandbox = await make_sandbox({ 'notes.txt': 'old\n' });
  server = await start_openai_server();
});

afterEach(async () => {
  await server.close();
  await sandbox.cleanup();
});

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Type `send` once the output shows `after`, past what earlier steps waited for: a line of text
 * (Enter added), or with `key` a single key, sent after the question's arming spell.
 */
interface PtyStep {
  after: string;
  send: string;
  key?: boolean;
  /** Wait this long after the cue before typing (a key: the arming spell, 900 ms). */
  wait_ms?: number;
}

/** A one-key answer to a permission question. */
const answer = (key: string): PtyStep => ({ after: ALLOW, send: key, key: true });

/** Runs `lich args` on a pty, typing each step's text once its cue shows. */
function run_on_pty(
  args: readonly string[],
  steps: readonly PtyStep[],
  term = 'dumb',
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, BIN, ...args].map(quote).join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: sandbox.work_dir,
      env: { ...openai_env(sandbox, server.base_url), TERM: term },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let from = 0;
    const pending = [...steps];
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`lich on a pty did not finish; it showed:\n${output}`));
    }, 30_000);
    const feed = () => {
      for (let step = pending[0]; step !== undefined; step = pending[0]) {
        const at = output.indexOf(step.after, from);
        if (at === -1) return;
        from = at + step.after.length;
        pending.shift();
        const text = step.key === true ? step.send : `${step.send}\r`;
        const wait = step.wait_ms ?? (step.key === true ? 900 : 0);
        if (wait === 0) child.stdin.write(text);
        else setTimeout(() => child.stdin.write(text), wait);
        if (wait > 0) {
          // later steps wait for their own cue, after this one was typed
          setTimeout(feed, wait + 10);
          return;
        }
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      feed();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.end();
      resolve({ code, output });
    });
  });
}

const ALLOW = 'allow?';

function write_then_answer(): void {
  server.enqueue(
    { tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'new\n' } }] },
    { text: 'Done.' },
  );
}

describe('approval on a terminal', () => {
  it('asks before a write; y runs it', async () => {
    write_then_answer();
    const result = await run_on_pty(['update the notes'], [answer('y')]);
    expect(result.output).toContain('write_file: notes.txt');
    expect(result.output).toContain(
      'allow? y once · a always this session · No · e no, and say why',
    );
    expect(result.code).toBe(0);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('new\n');
  });

  it('--approval-mode plan refuses the write, shows the plan, and y approves it for the run', async () => {
    const write = { name: 'write_file', arguments: { path: 'notes.txt', content: 'new\n' } };
    server.enqueue(
      { tool_calls: [write] },
      { tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: 'Rewrite notes.txt' } }] },
      { tool_calls: [write] },
      { text: 'Done.' },
    );
    const result = await run_on_pty(
      ['--approval-mode', 'plan', 'update the notes'],
      [
        { after: 'approve?', send: 'y', key: true },
        { after: ALLOW, send: 'y', key: true },
      ],
    );
    expect(result.code).toBe(0);
    expect(result.output).toContain('refused in plan mode');
    expect(result.output).toContain('│ Rewrite notes.txt');
    expect(result.output).toContain('approve? y yes, then ask before edits · a yes, and auto-edit');
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('new\n');
  });

  it('n declines it, and the model is told', async () => {
    write_then_answer();
    const result = await run_on_pty(['update the notes'], [answer('n')]);
    expect(result.code).toBe(0);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('old\n');
    const second = server.requests[1]?.body as { messages: { role: string; content: string }[] };
    expect(second.messages.at(-1)?.content).toMatch(/declined write_file: notes\.txt/);
    // the person reads a few words; the text written for the model stays with the model (C29)
    // (a loaded machine may take a second: `1.2 s`)
    expect(result.output).toMatch(/✗ write_file notes\.txt \S+ m?s — declined\r?\n/);
    expect(result.output).not.toMatch(/Do not retry it/);
  });

  it('--yolo runs it without asking', async () => {
    write_then_answer();
    const result = await run_on_pty(['--yolo', 'update the notes'], []);
    expect(result.output).not.toContain('allow?');
    expect(result.code).toBe(0);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('new\n');
  });

  it('a in chat allows the same call for the rest of the session', async () => {
    server.enqueue(
      { tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'one\n' } }] },
      { text: 'First.' },
      { tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'two\n' } }] },
      { text: 'Second.' },
    );
    const result = await run_on_pty(
      ['chat'],
      [
        { after: '/exit to leave', send: 'write one' },
        answer('a'),
        { after: 'First.', send: 'write two' },
        { after: 'Second.', send: '/exit' },
      ],
    );
    expect(result.code).toBe(0);
    expect(result.output.split(ALLOW)).toHaveLength(2);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('two\n');
    // the session records the answer and the call it let through, as the TUI's does
    const files = await session_files(sandbox.work_dir);
    expect(files).toHaveLength(1);
    const decisions = (await read_records(files[0] as string)).filter(
      (record) => record.type === 'permission',
    );
    expect(decisions).toMatchObject([
      { tool: 'write_file', decision: 'allow', source: 'approver', option: 'allow_always' },
      { tool: 'write_file', decision: 'allow', source: 'session' },
    ]);
  });
});

describe('the question on a terminal: what it approves, and only deliberate keys (C2, C3, C7, C35)', () => {
  for (const typed of ['and then', 'yes']) {
    it(`never reads keys typed before it appeared as the answer ("${typed}")`, async () => {
      server.enqueue(
        {
          delay_ms: 1_500,
          tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'new\n' } }],
        },
        { text: 'Done.' },
      );
      const result = await run_on_pty(
        ['update the notes'],
        [
          // typed while the model thinks, before any question
          { after: '', send: typed, key: true, wait_ms: 300 },
          answer('n'),
        ],
      );
      expect(result.code).toBe(0);
      expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('old\n');
      const second = server.requests[1]?.body as { messages: { content: string }[] };
      expect(second.messages.at(-1)?.content).toMatch(/declined write_file: notes\.txt/);
    });
  }

  it('in chat too: a line typed during the answer is queued, and never answers the question', async () => {
    server.enqueue(
      {
        delay_ms: 1_500,
        tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'new\n' } }],
      },
      { text: 'Done.' },
      { text: 'Got your y.' },
    );
    const result = await run_on_pty(
      ['chat'],
      [
        { after: '/exit to leave', send: 'update the notes' },
        // typed while the model thinks, before any question: y and Enter
        { after: 'thinking', send: 'y\r', key: true, wait_ms: 300 },
        answer('n'),
        { after: 'Got your y.', send: '/exit' },
      ],
    );
    expect(result.code).toBe(0);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('old\n');
    const second = server.requests[1]?.body as { messages: { content: string }[] };
    expect(second.messages.at(-1)?.content).toMatch(/declined write_file: notes\.txt/);
    // the line went as the next message, after the answer
    const third = server.requests[2]?.body as { messages: { role: string; content: string }[] };
    expect(third.messages.at(-1)).toMatchObject({ role: 'user', content: 'y' });
  }, 45_000);

  it('shows the diff of an edit and the first lines of a new file before asking', async () => {
    server.enqueue(
      {
        tool_calls: [
          {
            name: 'edit_file',
            arguments: { path: 'notes.txt', old_text: 'old', new_text: 'edited' },
          },
        ],
      },
      {
        tool_calls: [
          {
            name: 'write_file',
            arguments: { path: 'fresh.md', content: '# Fresh\n\nbody line\n' },
          },
        ],
      },
      { text: 'Done.' },
    );
    const result = await run_on_pty(['edit and write'], [answer('y'), answer('y')]);
    expect(result.code).toBe(0);
    const edit_question = result.output.indexOf('edit_file: notes.txt');
    const first_answer = result.output.indexOf(ALLOW, edit_question);
    const before_answer = result.output.slice(edit_question, first_answer);
    expect(before_answer).toContain('+1 −1');
    expect(before_answer).toContain('│ -old');
    expect(before_answer).toContain('│ +edited');
    expect(result.output).toMatch(/write_file: fresh\.md\s+new file, 19 bytes, 3 lines/);
    expect(result.output).toContain('│ # Fresh');
    expect(await readFile(join(sandbox.work_dir, 'fresh.md'), 'utf8')).toBe(
      '# Fresh\n\nbody line\n',
    );
  });

  it('e declines with a note, which the model reads; Enter alone means no', async () => {
    server.enqueue(
      { tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'new\n' } }] },
      { tool_calls: [{ name: 'write_file', arguments: { path: 'other.txt', content: 'x\n' } }] },
      { text: 'Done.' },
    );
    const result = await run_on_pty(
      ['update the notes'],
      [answer('e'), { after: 'why not?', send: 'keep the old notes' }, answer('\r')],
    );
    expect(result.code).toBe(0);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('old\n');
    const second = server.requests[1]?.body as { messages: { content: string }[] };
    expect(second.messages.at(-1)?.content).toContain(
      'The user declined write_file: notes.txt and said: keep the old notes',
    );
    const third = server.requests[2]?.body as { messages: { content: string }[] };
    expect(third.messages.at(-1)?.content).toMatch(
      /declined write_file: other\.txt\. Do not retry/,
    );
  });

  it('in chat, ↑ recalls the last message, never an answer to a question', async () => {
    server.enqueue(
      { tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'one\n' } }] },
      { text: 'First.' },
      { text: 'Again.' },
    );
    const result = await run_on_pty(
      ['chat'],
      [
        { after: '/exit to leave', send: 'write one' },
        answer('y'),
        // ↑ then Enter at the next prompt
        { after: 'First.', send: '\u001B[A', key: true, wait_ms: 300 },
        { after: 'write one', send: '' },
        { after: 'Again.', send: '/exit' },
      ],
      // readline keeps no history on a dumb terminal
      'xterm',
    );
    expect(result.code).toBe(0);
    const third = server.requests[2]?.body as { messages: { role: string; content: string }[] };
    expect(
      third.messages.filter((message) => message.role === 'user').map((m) => m.content),
    ).toEqual(['write one', 'write one']);
  }, 40_000);
});

describe('lines on a terminal (C19, C39)', () => {
  it('Ctrl+C in the middle of an answer puts the notice on a line of its own', async () => {
    server.enqueue({
      text: 'Slow answer streaming word by word and on and on.',
      chunk_chars: 4,
      chunk_delay_ms: 120,
    });
    const result = await run_on_pty(
      ['answer slowly'],
      [{ after: 'Slow', send: '\u0003', key: true, wait_ms: 200 }],
    );
    expect(result.code).toBe(130);
    expect(result.output).toMatch(/Slow[^\n]*\r?\n[^\n]*aborting…/);
    expect(result.output).not.toMatch(/[a-z]aborting…/);
  });

  it('lich chat leaves a blank line before the next prompt, and a new line when it ends', async () => {
    server.enqueue({ text: '# Title\n\nsome **markdown**' });
    const result = await run_on_pty(
      ['chat'],
      [
        { after: '/exit to leave', send: 'hello' },
        { after: 'markdown', send: '\u0004', key: true, wait_ms: 300 },
      ],
    );
    expect(result.code).toBe(0);
    expect(result.output).toMatch(/some \*\*markdown\*\*\r?\n\r?\n[^\n]*›/);
    expect(result.output).toMatch(/›\s*\r?\n$/);
  });
});

describe('lich chat on a terminal runs through the SessionHost (#31)', () => {
  it('queues a message typed during the answer; Ctrl+C aborts it and puts the message back', async () => {
    server.enqueue(
      {
        text: 'Slow answer streaming word by word and on and on.',
        chunk_chars: 4,
        chunk_delay_ms: 150,
      },
      { text: 'Later answer.' },
    );
    const result = await run_on_pty(
      ['chat'],
      [
        { after: '/exit to leave', send: 'first' },
        { after: 'Slow', send: 'later' },
        { after: 'queued: later', send: '\u0003', key: true, wait_ms: 200 },
        // the queued message is back at the prompt: Enter sends it
        { after: '› later', send: '' },
        { after: 'Later answer.', send: '/exit' },
      ],
    );
    expect(result.code).toBe(0);
    expect(result.output).toMatch(/aborted; session: /);
    expect(server.requests).toHaveLength(2);
    const second = server.requests[1]?.body as { messages: { role: string; content: string }[] };
    expect(second.messages.at(-1)).toMatchObject({ role: 'user', content: 'later' });
  }, 40_000);
});

describe('approval off a terminal', () => {
  it('runs every call as before, with no question', async () => {
    write_then_answer();
    const result = await run_lich(['update the notes'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('allow?');
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('new\n');
  });

  it('--approval-mode default denies what would ask, saying how to allow it', async () => {
    write_then_answer();
    const result = await run_lich(['--approval-mode', 'default', 'update the notes'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('old\n');
    const second = server.requests[1]?.body as { messages: { role: string; content: string }[] };
    const told = second.messages.at(-1)?.content ?? '';
    expect(told).toContain('no one is here to approve it');
    expect(told).toContain('--approval-mode auto_edit');
  });

  it('refuses a bad mode', async () => {
    const result = await run_lich(['--approval-mode', 'sometimes', 'x'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--approval-mode must be one of default, auto_edit, plan, yolo',
    );
  });
});
