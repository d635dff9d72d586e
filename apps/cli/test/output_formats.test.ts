import type { FakeServer, ScriptStep } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { openai_env, run_lich, type Sandbox, sandbox_and_server_each } from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;

sandbox_and_server_each((made) => ({ sandbox, server } = made), {
  'notes.txt': 'The launch code is 4711.\n',
});

const run = (args: string[], extra: Partial<Parameters<typeof run_lich>[1]> = {}) =>
  run_lich(args, { cwd: sandbox.work_dir, env: openai_env(sandbox, server.base_url), ...extra });

const READ_THEN_ANSWER: ScriptStep[] = [
  {
    reasoning: 'I should read it.',
    tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
  },
  { text: 'The code is 4711.' },
];

describe('print mode and output formats', () => {
  it('-p/--print "task" is the one-shot', async () => {
    server.enqueue({ text: 'one' }, { text: 'two' });
    const short = await run(['-p', 'say one']);
    expect(short).toMatchObject({ code: 0, stdout: 'one\n' });
    const long = await run(['--print', 'say two']);
    expect(long).toMatchObject({ code: 0, stdout: 'two\n' });
  });

  it('--output-format json is --json: one document', async () => {
    server.enqueue({ text: 'a' }, { text: 'b' });
    const json = JSON.parse((await run(['--json', 'x'])).stdout);
    const format = JSON.parse((await run(['--output-format', 'json', 'x'])).stdout);
    expect(Object.keys(format).sort()).toEqual(Object.keys(json).sort());
    expect(format).toMatchObject({ answer: 'b', stopped_reason: 'final' });
    const bad = await run(['--output-format', 'yaml', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--output-format expects text, json, stream-json/);
  });

  it('stream-json: one event per line, each with a type, from run_start to run_end', async () => {
    server.enqueue(...READ_THEN_ANSWER);
    const result = await run(['--output-format', 'stream-json', 'what is the code?']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const event of events) expect(typeof event.type).toBe('string');
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('run_start');
    expect(types.at(-1)).toBe('run_end');
    expect(events[0]).toMatchObject({ version: 1, provider: 'openai_compat', model: 'fake-model' });
    expect(types).toEqual(
      expect.arrayContaining(['turn_start', 'reasoning_delta', 'text_delta', 'turn_end', 'usage']),
    );
    const start = events.find((event) => event.type === 'tool_start');
    expect(start).toMatchObject({ name: 'read_file', arguments: { path: 'notes.txt' } });
    const end = events.find((event) => event.type === 'tool_end');
    expect(end).toMatchObject({ name: 'read_file', ok: true, error: null });
    expect(String(end?.output)).toContain('4711');
    const text = events
      .filter((event) => event.type === 'text_delta')
      .map((event) => event.text)
      .join('');
    expect(text).toBe('The code is 4711.');
    expect(events.at(-1)).toMatchObject({
      answer: 'The code is 4711.',
      stopped_reason: 'final',
      turns_used: 2,
    });
    expect(types.indexOf('tool_start')).toBeLessThan(types.indexOf('tool_end'));
  });

  it('stream-json ends with run_end on a failure too', async () => {
    server.enqueue({ kind: 'status', status: 401 });
    const result = await run(['--output-format', 'stream-json', 'x']);
    expect(result.code).toBe(1);
    const events = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events[0].type).toBe('run_start');
    expect(events.at(-1)).toMatchObject({ type: 'run_end', stopped_reason: 'error' });
  });
});

describe('-q and -v', () => {
  it('-q prints no progress; -v prints each call with its timing, and retries', async () => {
    server.enqueue(...READ_THEN_ANSWER);
    const quiet = await run(['-q', 'what is the code?']);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe('The code is 4711.\n');
    expect(quiet.stderr).toBe('');
    server.enqueue({ kind: 'status', status: 500 }, ...READ_THEN_ANSWER);
    const verbose = await run(['-v', 'what is the code?']);
    expect(verbose.code).toBe(0);
    expect(verbose.stderr).toMatch(/retry 1 of 2/);
    expect(verbose.stderr).toMatch(
      /turn 1: openai_compat\/fake-model answered in \d+(\.\d)? m?s, \d+ tokens in, \d+ out/,
    );
    expect(verbose.stderr).toMatch(/turn 2: /);
    const both = await run(['-q', '-v', 'x']);
    expect(both.code).toBe(2);
  });

  it('-V and --version print the version; -v is verbose, not the version', async () => {
    const version = await run(['-V']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const alone = await run(['-v']);
    expect(alone.stdout).not.toMatch(/^\d+\.\d+\.\d+/);
    expect(alone.stderr).not.toMatch(/unknown option/);
  });
});
