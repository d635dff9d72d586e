/**
 * Small things a new user met at the command line, through the built `lich` (items of
 * shared/field/newcomer-cli-tui.md): each message says what is wrong in Lich's own words.
 */
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import {
  openai_env,
  run_lich,
  type Sandbox,
  sandbox_and_server_each,
  session_files,
} from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;
sandbox_and_server_each((made) => ({ sandbox, server } = made));

const lich = (args: string[], env: Record<string, string> = sandbox.env) =>
  run_lich(args, { cwd: sandbox.work_dir, env });

describe('the command line as a new user meets it', () => {
  it('refuses --no-session with -c or --resume, recording nothing (C6)', async () => {
    server.enqueue({ text: 'first' });
    expect((await lich(['hello'], openai_env(sandbox, server.base_url))).code).toBe(0);
    const before = await session_files(sandbox.work_dir);
    for (const args of [
      ['--no-session', '-c', 'x'],
      ['chat', '--no-session', '--continue'],
    ]) {
      const refused = await lich(args, openai_env(sandbox, server.base_url));
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--no-session and -c\/--continue contradict each other/);
    }
    expect(await session_files(sandbox.work_dir)).toEqual(before);
    expect(server.requests).toHaveLength(1);
  });

  it('names an unknown --provider as such, with or without a model (C9)', async () => {
    for (const [args, env] of [
      [['--provider', 'bogus', 'q1'], sandbox.env],
      [['q1'], { ...sandbox.env, LICH_PROVIDER: 'bogus' }],
      [['--provider', 'bogus', '--model', 'x', 'q1'], sandbox.env],
    ] as const) {
      const result = await lich([...args], { ...env });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/unknown provider kind 'bogus' \(known: /);
      expect(result.stderr).not.toMatch(/has no default model/);
    }
  });

  it('says why OPENAI_BASE_URL alone found no provider (C14)', async () => {
    const result = await lich(['x'], { ...sandbox.env, OPENAI_BASE_URL: server.base_url });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/OPENAI_BASE_URL is set but was not used/);
    expect(result.stderr).toMatch(/LICH_BASE_URL/);
  });

  it("speaks Lich's words for a flag without its value, a value given to a switch, and an unknown option (C17)", async () => {
    const missing = await lich(['--max-turns']);
    expect(missing.stderr).toMatch(/^lich: flag --max-turns needs a value/);
    const model = await lich(['-m']);
    expect(model.stderr).toMatch(/^lich: flag --model needs a value/);
    const extra = await lich(['--json=yes', 'x']);
    expect(extra.stderr).toMatch(/^lich: flag --json takes no value/);
    const unknown = await lich(['--frobnicate', 'x']);
    expect(unknown.stderr).toMatch(/^lich: unknown option '--frobnicate'\n/);
    expect(unknown.stderr).not.toMatch(/for run/);
    for (const result of [missing, model, extra, unknown]) expect(result.code).toBe(2);
  });

  it('hints that -V is the version when -v comes alone (C18)', async () => {
    const result = await lich(['-v']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/-v is --verbose; the version is lich -V/);
  });

  for (const format of ['json', 'stream-json']) {
    it(`keeps an answer cut by Ctrl+C: --output-format ${format} carries what was said (C16)`, async () => {
      server.enqueue({
        text: 'Slow answer streaming word by word, and it goes on for a long while yet.',
        chunk_chars: 4,
        chunk_delay_ms: 150,
      });
      const result = await run_lich(['--output-format', format, 'answer now'], {
        cwd: sandbox.work_dir,
        env: openai_env(sandbox, server.base_url),
        on_spawn: (child) => {
          // once the answer streams (the run and its Ctrl+C handler are up), a Ctrl+C
          void server
            .wait_for_requests(1, { timeout_ms: 10_000 })
            .then(() => setTimeout(() => child.kill('SIGINT'), 500));
        },
      });
      expect(result.code).toBe(130);
      const text = result.stdout.trim();
      const last = JSON.parse(format === 'json' ? text : (text.split('\n').at(-1) ?? '{}')) as {
        answer: string | null;
        stopped_reason: string;
      };
      expect(last.stopped_reason).toBe('aborted');
      expect(last.answer).toMatch(/^Slow/);
      expect(last.answer?.length).toBeLessThan(60);
    }, 20_000);
  }

  it('shows a call whose arguments are not JSON as such, never with a made-up path (C30)', async () => {
    server.enqueue(
      { tool_calls: [{ name: 'read_file', arguments: '{not json' }] },
      { text: 'done' },
    );
    const result = await lich(['go'], openai_env(sandbox, server.base_url));
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/✗ read_file \(arguments are not JSON\)/);
    expect(result.stderr).not.toMatch(/read_file \. /);
  });

  it('says what is past --limit, and explains a short prefix or an unwritable export (C25, C26)', async () => {
    for (let index = 0; index < 3; index++) server.enqueue({ text: `answer ${index}` });
    for (let index = 0; index < 3; index++) {
      expect((await lich([`task ${index}`], openai_env(sandbox, server.base_url))).code).toBe(0);
    }
    const listed = await lich(['sessions', 'list', '--limit', '2']);
    expect(listed.stdout.trim().split('\n')).toHaveLength(2);
    expect(listed.stderr).toMatch(/… 1 more \(lich sessions list --limit 3\)/);
    const short = await lich(['sessions', 'export', 'zz']);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/an id prefix needs at least 4 characters/);
    const newest = listed.stdout.split(/\s/)[0] ?? '';
    const unwritable = await lich(['sessions', 'export', newest, '--out', '/nonexistent/dir/x.md']);
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(
      /^lich: cannot write the export to \/nonexistent\/dir\/x\.md: its folder does not exist/,
    );
  });

  it('labels the reasoning when colour is off (C28)', async () => {
    server.enqueue({ reasoning: 'Thinking hard about this.', text: 'The answer is 42.' });
    const result = await lich(['--show-reasoning', 'q'], {
      ...openai_env(sandbox, server.base_url),
      NO_COLOR: '1',
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('[reasoning] Thinking hard about this.');
    expect(result.stdout).toBe('The answer is 42.\n');
  });

  it('asks whether the server at an unreachable base URL runs (C36)', async () => {
    const result = await lich(['hi'], {
      ...sandbox.env,
      LICH_PROVIDER: 'openai_compat',
      LICH_MODEL: 'fake-model',
      LICH_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/is the server at http:\/\/127\.0\.0\.1:9\/v1 running\?/);
  }, 60_000);

  for (const args of [['--json', 'hi'], ['hi']]) {
    it(`retries a stream cut mid-answer when the output is buffered: lich ${args.join(' ')} (C4)`, async () => {
      const text =
        'This is a long answer that will get cut in the middle of the stream because the fault says so, and then it comes again whole.';
      server.enqueue(
        { kind: 'cut', after_bytes: 600, reply: { text, chunk_chars: 8 } },
        { text, chunk_chars: 8 },
      );
      const result = await lich(args, openai_env(sandbox, server.base_url));
      expect(result.code, result.stderr).toBe(0);
      const answer = args[0] === '--json' ? JSON.parse(result.stdout).answer : result.stdout.trim();
      expect(answer).toBe(text);
      expect(server.requests).toHaveLength(2);
    });
  }
});
