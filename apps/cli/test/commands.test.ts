import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  make_sandbox,
  openai_env,
  read_records,
  request_body,
  run_lich,
  type Sandbox,
  session_files,
} from './helpers.js';

/** What `lich init` adds to `.gitignore`. */
const LOCAL_STATE =
  "# Lich's own state: sessions, input history, checkpoints (the config and shared folders stay)\n.lich/*\n!.lich/config.json\n!.lich/skills/\n!.lich/commands/\n!.lich/agents/\n";

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await make_sandbox({ 'notes.txt': 'apples and pears\n' });
});

afterEach(async () => {
  await sandbox.cleanup();
});

const run = (args: string[], extra: Partial<Parameters<typeof run_lich>[1]> = {}) =>
  run_lich(args, { cwd: sandbox.work_dir, env: sandbox.env, ...extra });

describe('lich basics', () => {
  it('prints the version from package.json', async () => {
    const manifest = JSON.parse(
      await readFile(new URL('../package.json', import.meta.url), 'utf8'),
    );
    const result = await run(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
    const esm_entry = await run(['--version'], {
      script: fileURLToPath(new URL('../dist/bin.js', import.meta.url)),
    });
    expect(esm_entry).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });
  });

  it('has help for every command', async () => {
    const main = await run(['--help']);
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/\btui\b/);
    const commands = [
      'run',
      'chat',
      'tui',
      'serve',
      'sessions',
      'mcp',
      'init',
      'config',
      'update',
      'acp',
    ];
    for (const command of [...commands, 'gateway', 'help']) {
      const result = await run([command, '--help']);
      expect(result.code, command).toBe(0);
      expect(result.stdout, command).toMatch(/^Usage: lich/);
    }
  });

  it('suggests the nearest command and option', async () => {
    const command = await run(['sesions']);
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/unknown command 'sesions'/);
    expect(command.stderr).toMatch(/did you mean 'sessions'\?/);
    const option = await run(['--modle', 'x', 'task']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/unknown option '--modle'[\s\S]*did you mean '--model'\?/);
  });

  it('names the file, the key and what was expected for a config of the wrong type', async () => {
    const path = join(sandbox.work_dir, '.lich', 'config.json');
    await mkdir(join(sandbox.work_dir, '.lich'));
    await writeFile(path, JSON.stringify({ max_turns: 'ten', providers: [] }));
    const result = await run(['config']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path}: max_turns: expected number, received string`);
  });

  it('warns about unknown config keys with the nearest known key', async () => {
    const path = join(sandbox.xdg, 'lich', 'config.json');
    await mkdir(join(sandbox.xdg, 'lich'));
    await writeFile(path, JSON.stringify({ max_turn: 3, sesion_dir: 'x' }));
    const result = await run(['config', 'get', 'max_turns']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('50\n');
    expect(result.stderr).toContain(`${path}: unknown key 'max_turn' (did you mean 'max_turns'?)`);
    expect(result.stderr).toContain(`unknown key 'sesion_dir' (did you mean 'session_dir'?)`);
  });
});

describe('lich init and lich config', () => {
  it('writes a config with $schema, ignores the sessions folder, and shows sources', async () => {
    await writeFile(join(sandbox.work_dir, '.gitignore'), 'node_modules');
    const init = await run(['init']);
    expect(init.code).toBe(0);
    const config = JSON.parse(
      await readFile(join(sandbox.work_dir, '.lich', 'config.json'), 'utf8'),
    );
    // no path of this machine in a file meant to be committed: the published schema of this version
    const manifest = JSON.parse(
      await readFile(new URL('../package.json', import.meta.url), 'utf8'),
    );
    expect(config.$schema).toBe(
      `https://unpkg.com/@lich/agent@${manifest.version}/config.schema.json`,
    );
    // with @lich/agent installed in the project, the schema is found relative to the config
    const local = join(sandbox.work_dir, 'node_modules', '@lich', 'agent');
    await mkdir(local, { recursive: true });
    await writeFile(join(local, 'config.schema.json'), '{"properties":{"max_turns":{}}}');
    expect((await run(['init', '--force'])).code).toBe(0);
    const relative_config = JSON.parse(
      await readFile(join(sandbox.work_dir, '.lich', 'config.json'), 'utf8'),
    );
    expect(relative_config.$schema).toBe('../node_modules/@lich/agent/config.schema.json');
    const schema = JSON.parse(
      await readFile(join(sandbox.work_dir, '.lich', relative_config.$schema), 'utf8'),
    );
    expect(schema.properties.max_turns).toBeDefined();
    expect(await readFile(join(sandbox.work_dir, '.gitignore'), 'utf8')).toBe(
      `node_modules\n${LOCAL_STATE}`,
    );
    const again = await run(['init']);
    expect(again.stderr).toMatch(/exists; left as it is/);
    expect(await readFile(join(sandbox.work_dir, '.gitignore'), 'utf8')).toBe(
      `node_modules\n${LOCAL_STATE}`,
    );
    // in a real repository only the config is left to commit: the TUI's input history, the
    // sessions and checkpoints are ignored (C5)
    await mkdir(join(sandbox.work_dir, '.lich', 'sessions'), { recursive: true });
    await writeFile(join(sandbox.work_dir, '.lich', 'tui_history.jsonl'), '{"text":"my secret"}\n');
    await writeFile(join(sandbox.work_dir, '.lich', 'sessions', 'x.jsonl'), '{}\n');
    await mkdir(join(sandbox.work_dir, '.lich', 'skills', 'review'), { recursive: true });
    await writeFile(join(sandbox.work_dir, '.lich', 'skills', 'review', 'SKILL.md'), '# r\n');
    execFileSync('git', ['init', '-q'], { cwd: sandbox.work_dir });
    const status = execFileSync('git', ['status', '--porcelain', '-uall'], {
      cwd: sandbox.work_dir,
      encoding: 'utf8',
    });
    expect(status).toContain('.lich/config.json');
    expect(status).toContain('.lich/skills/review/SKILL.md');
    expect(status).not.toContain('tui_history');
    expect(status).not.toContain('sessions');

    const set = await run(['config', 'set', 'max_turns', '12']);
    expect(set.code).toBe(0);
    const bad = await run(['config', 'set', 'max_turns', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/max_turns: expected number/);
    const shown = await run(['config'], {
      env: {
        ...sandbox.env,
        OPENAI_API_KEY: 'sk-secretsecretsecret',
        LICH_CONTEXT_WINDOW: '64000',
      },
    });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^max_turns\s+12\s+\(.*\.lich\/config\.json\)$/m);
    expect(shown.stdout).toMatch(/^context_window\s+64000\s+\(env LICH_CONTEXT_WINDOW\)$/m);
    expect(shown.stdout).toMatch(/^providers\s+.*"openai_compat".*\(key: env OPENAI_API_KEY\)$/m);
    expect(shown.stdout).toMatch(/^session_dir\s+.*\(derived from work_dir\)$/m);
    expect(shown.stdout).not.toContain('sk-secret');
    // the system prompt's size, AGENTS.md left out (#36 part 5)
    const tokens = Number(
      /the system prompt: ~(\d+) tokens before AGENTS\.md/.exec(shown.stdout)?.[1],
    );
    expect(tokens).toBeGreaterThan(100);
    expect(tokens).toBeLessThanOrEqual(1_000);
  });

  it('redacts secrets in headers', async () => {
    await mkdir(join(sandbox.work_dir, '.lich'));
    await writeFile(
      join(sandbox.work_dir, '.lich', 'config.json'),
      JSON.stringify({
        providers: [
          {
            kind: 'openai_compat',
            model: 'm',
            headers: { Authorization: 'Bearer abc123', 'X-Title': 'lich' },
          },
        ],
      }),
    );
    const result = await run(['config', '--json']);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout);
    expect(document.config.providers[0].headers).toEqual({
      Authorization: '[redacted]',
      'X-Title': 'lich',
    });
  });
});

describe('lich mcp', () => {
  it('adds, lists, disables and removes a server', async () => {
    const add = await run(['mcp', 'add', 'files', '--', 'npx', '-y', 'some-server', '/tmp']);
    expect(add.code).toBe(0);
    const http = await run(['mcp', 'add', 'remote', '--url', 'http://127.0.0.1:9/mcp']);
    expect(http.code).toBe(0);
    const listed = await run(['mcp', 'list', '--no-check']);
    expect(listed.stdout).toMatch(/^files\s+enabled\s+stdio\s+npx -y some-server \/tmp$/m);
    expect(listed.stdout).toMatch(/^remote\s+enabled\s+http\s+http:\/\/127\.0\.0\.1:9\/mcp$/m);
    expect((await run(['mcp', 'disable', 'files'])).code).toBe(0);
    const json = JSON.parse((await run(['mcp', 'list', '--json', '--no-check'])).stdout);
    expect(
      json.map((server: { name: string; enabled: boolean }) => [server.name, server.enabled]),
    ).toEqual([
      ['files', false],
      ['remote', true],
    ]);
    expect((await run(['mcp', 'remove', 'files'])).code).toBe(0);
    const missing = await run(['mcp', 'remove', 'files']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no MCP server named 'files'/);
    const config = JSON.parse(
      await readFile(join(sandbox.work_dir, '.lich', 'config.json'), 'utf8'),
    );
    expect(Object.keys(config.mcp_servers)).toEqual(['remote']);
  });
});

describe('lich chat and lich sessions', () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await start_openai_server();
  });
  afterEach(async () => {
    await server.close();
  });

  it('chats over a pipe for three turns, keeping the history in one session', async () => {
    server.enqueue({ text: 'one' }, { text: 'two' }, { text: 'three' });
    const result = await run(['chat'], {
      env: openai_env(sandbox, server.base_url),
      input: 'first question\nsecond question\nthird question\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('one\ntwo\nthree\n');
    const third = request_body(server, 2);
    expect(third.messages.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual([
      'first question',
      'one',
      'second question',
      'two',
      'third question',
    ]);
    const files = await session_files(sandbox.work_dir);
    expect(files).toHaveLength(1);
    const records = await read_records(files[0] as string);
    expect(records.filter((record) => record.type === 'run_end')).toHaveLength(3);
  });

  it('lists, shows, searches, exports and resumes a session', async () => {
    server.enqueue({ text: 'Pears are sweeter.' }, { text: 'You asked about pears.' });
    const env = openai_env(sandbox, server.base_url);
    expect((await run(['compare apples and pears'], { env })).code).toBe(0);
    const list = await run(['sessions', 'list'], { env });
    expect(list.code).toBe(0);
    const id = list.stdout.split(/\s+/)[0] as string;
    expect(list.stdout).toMatch(/compare apples and pears/);
    const show = await run(['sessions', 'show', id.slice(0, 12)], { env });
    expect(show.stdout).toMatch(/^user: compare apples and pears$/m);
    expect(show.stdout).toMatch(/^assistant: Pears are sweeter\.$/m);
    const search = await run(['sessions', 'search', 'sweeter'], { env });
    expect(search.stdout).toContain(id);
    const exported = await run(['sessions', 'export', id], { env });
    expect(exported.stdout).toContain('Pears are sweeter.');
    const resumed = await run(['sessions', 'resume', id, 'what did I ask?'], { env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('You asked about pears.\n');
    const body = request_body(server, 1);
    expect(body.messages.map((m) => m.content)).toContain('compare apples and pears');
    const missing = await run(['sessions', 'show', 'nope'], { env });
    expect(missing.code).toBe(2);
  });
});
