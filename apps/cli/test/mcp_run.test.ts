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
    const result = await run_lich(['when does the owl fly?'], {
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
});
