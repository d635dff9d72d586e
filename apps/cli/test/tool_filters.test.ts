/**
 * C1: a tool the user disallowed is never offered or run, whatever adds it — here MCP servers
 * that announce a tool-list change (the reference server-everything right after it starts, and
 * the fake server whose `add_tool` adds a tool at run time), through the built `lich`.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import {
  openai_env,
  request_body,
  run_lich,
  type Sandbox,
  sandbox_and_server_each,
} from './helpers.js';

const EVERYTHING = join(
  dirname(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json'),
  ),
  'dist',
  'index.js',
);
const FAKE_MCP = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../../packages/mcp/test/fixtures/fake_server.mjs',
);

let sandbox: Sandbox;
let server: FakeServer;
sandbox_and_server_each((made) => ({ sandbox, server } = made));

type ToolsBody = { tools?: { function: { name: string } }[] };

function offered(index: number): string[] {
  return (request_body<ToolsBody>(server, index).tools ?? []).map((tool) => tool.function.name);
}

async function add_server(name: string, ...command: string[]): Promise<void> {
  const add = await run_lich(['mcp', 'add', name, '--', process.execPath, ...command], {
    cwd: sandbox.work_dir,
    env: sandbox.env,
  });
  expect(add.code, add.stderr).toBe(0);
}

describe('disallowed tools stay out after a tools/list_changed', () => {
  it('--disallowed-tools keeps every server-everything tool out of the offer and the run', async () => {
    await add_server('everything', EVERYTHING, 'stdio');
    server.enqueue(
      { tool_calls: [{ name: 'mcp_everything_echo', arguments: { message: 'hello mcp' } }] },
      { tool_calls: [{ name: 'mcp_everything_get-sum', arguments: { a: 2, b: 40 } }] },
      { text: 'done' },
    );
    // the servers are in the project's file: they start in a trusted folder
    const result = await run_lich(
      ['--trust', '--disallowed-tools', 'mcp_everything_*', 'use mcp'],
      {
        cwd: sandbox.work_dir,
        env: openai_env(sandbox, server.base_url),
        timeout_ms: 60_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    for (let index = 0; index < 3; index++) {
      const names = offered(index);
      expect(names).toContain('read_file');
      expect(names.filter((name) => name.startsWith('mcp_everything_'))).toEqual([]);
    }
    // neither call ran: each came back as an unknown tool
    const second = JSON.stringify(request_body(server, 1));
    expect(second).toMatch(/unknown tool|no tool named/i);
    expect(second).not.toContain('Echo: hello mcp');
    expect(JSON.stringify(request_body(server, 2))).not.toContain('The sum of 2 and 40');
  }, 90_000);

  it('tools_disabled in the config keeps out a tool another server announces at once', async () => {
    await add_server('fake', FAKE_MCP, 'eager');
    const set = await run_lich(['config', 'set', 'tools_disabled', '["mcp_fake_extra_*"]'], {
      cwd: sandbox.work_dir,
      env: sandbox.env,
    });
    expect(set.code, set.stderr).toBe(0);
    server.enqueue(
      { tool_calls: [{ name: 'mcp_fake_extra_1', arguments: {} }] },
      { tool_calls: [{ name: 'mcp_fake_hello', arguments: { value: 'there' } }] },
      { text: 'done' },
    );
    const result = await run_lich(['--trust', 'call the new tool'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
      timeout_ms: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    // an allowed tool of the same server runs
    expect(JSON.stringify(request_body(server, 2))).toContain('hello there');
    for (const index of [0, 1, 2]) {
      expect(offered(index)).toContain('mcp_fake_hello');
      expect(offered(index).filter((name) => name.startsWith('mcp_fake_extra_'))).toEqual([]);
    }
    expect(JSON.stringify(request_body(server, 1))).not.toContain('extra_1 ran');
  }, 90_000);
});
