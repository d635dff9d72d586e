import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { make_sandbox, openai_env, request_body, run_lich, type Sandbox } from './helpers.js';

const FILESYSTEM_SERVER = join(
  dirname(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/package.json'),
  ),
  'dist',
  'index.js',
);

let sandbox: Sandbox;
let server: FakeServer;

beforeEach(async () => {
  sandbox = await make_sandbox({ 'owl.txt': 'the owl flies at midnight\n' });
  server = await start_openai_server();
});

afterEach(async () => {
  await server.close();
  await sandbox.cleanup();
});

describe('lich with an MCP server', () => {
  it('offers the server tools as mcp_<server>_<tool> and runs them', async () => {
    const add = await run_lich(
      ['mcp', 'add', 'files', '--', process.execPath, FILESYSTEM_SERVER, sandbox.work_dir],
      { cwd: sandbox.work_dir, env: sandbox.env },
    );
    expect(add.code, add.stderr).toBe(0);
    server.enqueue(
      {
        tool_calls: [
          {
            name: 'mcp_files_read_text_file',
            arguments: { path: join(sandbox.work_dir, 'owl.txt') },
          },
        ],
      },
      { text: 'At midnight.' },
    );
    // the server is in the project's file: it starts in a trusted folder
    const result = await run_lich(['--trust', 'when does the owl fly?'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
      timeout_ms: 30_000,
    });
    expect(result.stderr).toMatch(/✓ mcp_files_read_text_file/);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('At midnight.\n');
    const first = request_body<{ tools: { function: { name: string } }[] }>(server, 0);
    const names = first.tools.map((tool) => tool.function.name);
    expect(names).toContain('mcp_files_read_text_file');
    expect(names).toContain('read_file');
    expect(JSON.stringify(request_body(server, 1))).toContain('the owl flies at midnight');
  });

  it('mcp list starts each enabled server once: health and tool count (C27)', async () => {
    const env = { cwd: sandbox.work_dir, env: sandbox.env };
    const add = (args: string[]) => run_lich(['mcp', 'add', ...args], env);
    expect(
      (await add(['files', '--', process.execPath, FILESYSTEM_SERVER, sandbox.work_dir])).code,
    ).toBe(0);
    // a second, broken server: its command does not exist
    expect((await add(['broken', '--', join(sandbox.work_dir, 'no-such-server')])).code).toBe(0);
    // a remote one that answers nothing useful, disabled: not started
    expect((await add(['remote', '--url', 'http://127.0.0.1:9/mcp'])).code).toBe(0);
    expect((await run_lich(['mcp', 'disable', 'remote'], env)).code).toBe(0);
    const listed = await run_lich(['mcp', 'list'], { ...env, timeout_ms: 30_000 });
    expect(listed.stdout).toMatch(/^files\s+enabled\s+stdio\s+.*✓ \d+ tools$/m);
    expect(listed.stdout).toMatch(/^broken\s+enabled\s+stdio\s+.*✗ /m);
    expect(listed.stdout).toMatch(/^remote\s+disabled\s+http\s+http:\/\/127\.0\.0\.1:9\/mcp$/m);
    expect(listed.code).toBe(1);
    const json = JSON.parse((await run_lich(['mcp', 'list', '--json'], env)).stdout) as {
      name: string;
      health?: { ok: boolean; tools?: number };
    }[];
    const files = json.find((server) => server.name === 'files');
    expect(files?.health?.ok).toBe(true);
    expect(files?.health?.tools).toBeGreaterThan(5);
    expect(json.find((server) => server.name === 'remote')?.health).toBeUndefined();
  });

  it('mcp --help aligns every option description (C27)', async () => {
    const help = await run_lich(['mcp', '--help'], { cwd: sandbox.work_dir, env: sandbox.env });
    const options = help.stdout.slice(help.stdout.indexOf('Options:')).split('\n').slice(1);
    const columns = new Set(
      options
        .filter((line) => line.trim() !== '')
        .map((line) => /^ {2}\S.*?\s{2,}(?=\S)/.exec(line)?.[0].length),
    );
    expect([...columns]).toHaveLength(1);
  });
});
