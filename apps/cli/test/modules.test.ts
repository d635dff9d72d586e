import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { make_sandbox, openai_env, run_lich, type Sandbox } from './helpers.js';

const RECORDER = fileURLToPath(new URL('./fixtures/record_modules.mjs', import.meta.url));
const FORBIDDEN = [
  /\/node_modules\/(\.pnpm\/)?ink[@/]/,
  /\/node_modules\/(\.pnpm\/)?react[@/]/,
  /\/node_modules\/(\.pnpm\/)?ws[@/]/,
  /grammy|discord\.js|tmi\.js/,
  /@modelcontextprotocol/,
  /@lich\/(tui|serve|gateway|store-postgres)/,
  /\/node_modules\/(\.pnpm\/)?pg[@/]/,
];

let sandbox: Sandbox;
let server: FakeServer;

beforeEach(async () => {
  sandbox = await make_sandbox({ 'notes.txt': 'hello\n' });
  server = await start_openai_server();
});

afterEach(async () => {
  await server.close();
  await sandbox.cleanup();
});

async function loaded_modules(args: string[], env: Record<string, string>): Promise<string[]> {
  const log = join(sandbox.temp.path, `modules-${Math.random().toString(36).slice(2)}.log`);
  const result = await run_lich(args, {
    cwd: sandbox.work_dir,
    env: { ...env, LICH_MODULE_LOG: log },
    node_args: ['--import', RECORDER],
  });
  expect(result.code, result.stderr).toBe(0);
  // no file: nothing was loaded through either module loader at all
  const text = await readFile(log, 'utf8').catch(() => '');
  return text.trim() === '' ? [] : [...new Set(text.trim().split('\n'))];
}

describe('what the one-shot path loads', () => {
  it('never loads ink, react, ws, a gateway SDK, PostgreSQL or the MCP client without MCP servers', async () => {
    server.enqueue(
      { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'done' },
    );
    const modules = await loaded_modules(['read notes.txt'], openai_env(sandbox, server.base_url));
    // the recorder works: the bundle's loader (or, unbundled, the packages) the run needs are in
    // the list; what the bundle holds is checked in bundle.test.ts
    expect(
      modules.some((url) =>
        /cli\/dist\/bundle_loader\.cjs$|provider-openai\/dist\/index\.js$/.test(url),
      ),
    ).toBe(true);
    for (const pattern of FORBIDDEN) {
      expect(
        modules.filter((url) => pattern.test(url)),
        String(pattern),
      ).toEqual([]);
    }
  });

  it('loads the MCP client only once an MCP server is enabled', async () => {
    const add = await run_lich(['mcp', 'add', 'broken', '--', 'lich-no-such-mcp-server'], {
      cwd: sandbox.work_dir,
      env: sandbox.env,
    });
    expect(add.code).toBe(0);
    server.enqueue({ text: 'done' });
    // the server is in the project's file: it starts in a trusted folder
    const modules = await loaded_modules(['--trust', 'hi'], openai_env(sandbox, server.base_url));
    expect(modules.some((url) => /@modelcontextprotocol/.test(url))).toBe(true);
  });

  it('loads nothing but the executable itself for --version', async () => {
    const modules = await loaded_modules(['--version'], sandbox.env);
    expect(modules.filter((url) => !url.startsWith('node:'))).toEqual([
      expect.stringMatching(/cli\/dist\/bin\.cjs$/),
    ]);
  });
});
