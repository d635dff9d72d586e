import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { make_sandbox, openai_env, request_body, run_lich, type Sandbox } from './helpers.js';

/** The misbehaving MCP server of @lich/mcp's tests: raw JSON-RPC over stdio, by mode. */
const FAKE_MCP = fileURLToPath(
  new URL('../../../packages/mcp/test/fixtures/fake_server.mjs', import.meta.url),
);

let sandbox: Sandbox;
let server: FakeServer;
let web: Server;
let web_url: string;
let authorizations: (string | undefined)[];

beforeEach(async () => {
  sandbox = await make_sandbox();
  server = await start_openai_server();
  authorizations = [];
  web = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('Not Found');
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  web_url = `http://127.0.0.1:${(web.address() as AddressInfo).port}/wrong`;
});

afterEach(async () => {
  await server.close();
  await new Promise((resolve) => web.close(resolve));
  await sandbox.cleanup();
});

const lich = (args: string[], extra: Partial<Parameters<typeof run_lich>[1]> = {}) =>
  run_lich(args, {
    cwd: sandbox.work_dir,
    env: openai_env(sandbox, server.base_url),
    timeout_ms: 30_000,
    ...extra,
  });

describe('MCP servers that fail say how', () => {
  it('a URL answering 404 says so; a crashed server gives its exit code; a.b has mcp_a_b_<tool>', async () => {
    const fake = (mode: string) => ['--', process.execPath, FAKE_MCP, mode];
    for (const args of [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} placeholder of the config, not a template
      ['mcp', 'add', 'site', '--url', web_url, '--header', 'Authorization: Bearer ${SITE_TOKEN}'],
      ['mcp', 'add', 'dies', ...fake('exit')],
      ['mcp', 'add', 'a.b', ...fake('normal')],
    ]) {
      const added = await lich(args, { env: sandbox.env });
      expect(added.code, added.stderr).toBe(0);
    }
    server.enqueue(
      { tool_calls: [{ name: 'mcp_a_b_hello', arguments: { value: 'there' } }] },
      { tool_calls: [{ name: 'mcp_a_b_crash', arguments: {} }] },
      { text: 'done' },
    );
    // the servers are in the project's file: they start in a trusted folder
    const result = await lich(['--trust', '--no-session', 'go'], {
      env: { ...openai_env(sandbox, server.base_url), SITE_TOKEN: 'from-the-environment' },
    });
    expect(authorizations).toContain('Bearer from-the-environment');
    expect(result.stderr).toMatch(
      new RegExp(`MCP server 'site' answered HTTP 404 Not Found at ${web_url}`),
    );
    expect(result.stderr).not.toMatch(/closed the connection before answering initialize/);
    expect(result.stderr).toMatch(
      /MCP server 'dies' exited \(exit code 3\) before answering initialize/,
    );
    expect(result.stderr).toMatch(/✓ mcp_a_b_hello/);
    expect(result.stderr).toMatch(/went down \(the process exited \(exit code 7\)\)/);
    expect(result.code).toBe(0);
    const names = request_body<{ tools: { function: { name: string } }[] }>(server, 0).tools.map(
      (tool) => tool.function.name,
    );
    expect(names).toContain('mcp_a_b_hello');
    expect(names).toContain('mcp_a_b_crash');
  });
});

describe('lich mcp add with a secret', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} placeholder of the config, not a template
  it('suggests ${VAR} for a token written into the project file, and not for a reference', async () => {
    const literal = await lich(
      [
        'mcp',
        'add',
        'gh',
        '--url',
        web_url,
        '--header',
        'Authorization: Bearer ghp_abcdefghijklmnop1234',
      ],
      { env: sandbox.env },
    );
    expect(literal.code).toBe(0);
    expect(literal.stderr).toMatch(/warning: the header 'Authorization' holds a secret as written/);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} placeholder of the config, not a template
    expect(literal.stderr).toContain('--header "Authorization: Bearer ${MCP_TOKEN}"');
    const env = await lich(
      ['mcp', 'add', 'db', '--env', 'DB_PASSWORD=hunter2', '--', 'db-server'],
      {
        env: sandbox.env,
      },
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} placeholder of the config, not a template
    expect(env.stderr).toContain("--env 'DB_PASSWORD=${DB_PASSWORD}'");
    const reference = await lich(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} placeholder of the config, not a template
      ['mcp', 'add', 'gh2', '--url', web_url, '--header', 'Authorization: Bearer ${GH_TOKEN}'],
      { env: sandbox.env },
    );
    expect(reference.code).toBe(0);
    expect(reference.stderr).not.toMatch(/warning/);
  });
});
