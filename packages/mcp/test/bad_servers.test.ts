/**
 * Servers that misbehave, run as real child processes (test/fixtures/fake_server.mjs speaks raw
 * JSON-RPC over stdio): a missing command, silence, garbage, an early exit, broken schemas, a
 * 10 MB result, a crash mid-call. Each gives a clear error or a clamped result, the others work.
 */
import { join } from 'node:path';
import { ToolExecutor, ToolRegistry } from '@lich/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attach_mcp, type McpAttachment, parse_mcp_catalog } from '../src/index.js';
import { FAKE_SERVER, temp_dir, wait_for } from './helpers.js';

const PASSWORD = 'correct-horse-battery-staple';
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

function fake(mode: string, extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: [FAKE_SERVER, mode], ...extra };
}

function catalog_of(value: unknown) {
  const parsed = parse_mcp_catalog(value);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.catalog;
}

describe('misbehaving servers, attached together', () => {
  const registry = new ToolRegistry();
  const executor = new ToolExecutor(registry, { work_dir: process.cwd() });
  const warnings: string[] = [];
  let attachment: McpAttachment;

  beforeAll(async () => {
    attachment = await attach_mcp(
      catalog_of({
        fake: fake('normal', { env: { FAKE_TOKEN: TOKEN } }),
        noisy: fake('garbage'),
        silent: fake('silent', { timeout_ms: 500 }),
        // long enough for a loaded machine to start node and print the garbage before the timeout
        junk: fake('garbage_only', { timeout_ms: 2_500 }),
        dies: fake('exit', { env: { FAKE_PASSWORD: PASSWORD } }),
        missing: { command: 'lich-no-such-command-4711' },
        off: { command: 'lich-no-such-command-4712', enabled: false },
      }),
      registry,
      { on_warning: (message) => warnings.push(message) },
    );
  });

  afterAll(async () => {
    await attachment?.close();
  });

  it('attaches the working servers and reports the others, in catalog order', () => {
    expect(attachment.connected).toEqual(['fake', 'noisy']);
    expect(attachment.failed.map((failure) => failure.server)).toEqual([
      'silent',
      'junk',
      'dies',
      'missing',
    ]);
    expect(attachment.skipped).toEqual(['off']);
    for (const failure of attachment.failed) {
      expect(warnings).toContain(
        `${failure.error}\n(the run goes on without MCP server '${failure.server}')`,
      );
    }
  });

  it('says a command was not found', () => {
    const failure = attachment.failed.find((entry) => entry.server === 'missing');
    expect(failure?.error).toMatch(/command not found: 'lich-no-such-command-4711'/);
  });

  it('gives up on a server that never answers initialize', () => {
    const failure = attachment.failed.find((entry) => entry.server === 'silent');
    expect(failure?.error).toMatch(/MCP server 'silent' did not answer initialize within 500 ms/);
  });

  it('names garbage on stdout when a server never answers', () => {
    const failure = attachment.failed.find((entry) => entry.server === 'junk');
    expect(failure?.error).toMatch(/did not answer initialize within 2500 ms/);
    expect(failure?.error).toMatch(/not JSON-RPC/);
  });

  it('shows the stderr of a server that exits at start, secrets redacted', () => {
    const failure = attachment.failed.find((entry) => entry.server === 'dies');
    expect(failure?.error).toMatch(
      /MCP server 'dies' exited \(exit code 3\) before answering initialize/,
    );
    expect(failure?.error).toContain('fatal: missing configuration');
    expect(failure?.error).toContain('[redacted]');
    expect(failure?.error).not.toContain(PASSWORD);
    expect(failure?.error).not.toContain('sk-abcdefghijklmnop1234');
    for (const warning of warnings) expect(warning).not.toContain(PASSWORD);
  });

  it('tolerates garbage lines around real answers', async () => {
    expect(await executor.execute('mcp_noisy_hello', { value: 'there' })).toMatchObject({
      ok: true,
      output: 'hello there',
    });
    expect(warnings.some((warning) => warning.includes("'noisy' writes JSON to stdout"))).toBe(
      true,
    );
  });

  it('lists every page, and skips only the tools with a broken schema', () => {
    const names = registry.names().filter((name) => name.startsWith('mcp_fake_'));
    for (const tool of ['hello', 'big', 'add_tool', 'env', 'crash', 'slow']) {
      expect(names).toContain(`mcp_fake_${tool}`);
    }
    expect(names).not.toContain('mcp_fake_bad_schema');
    expect(names).not.toContain('mcp_fake_no_schema');
    expect(warnings).toContain(
      "MCP server 'fake': tool 'bad_schema' skipped: its inputSchema must describe an object, not \"string\"",
    );
    expect(warnings).toContain(
      "MCP server 'fake': tool 'no_schema' skipped: its inputSchema is missing or not an object",
    );
  });

  it('makes an unsafe tool name safe, with a stable hash', () => {
    const dotted = registry.names().find((name) => name.startsWith('mcp_fake_dotted'));
    expect(dotted).toMatch(/^mcp_fake_dotted_name_with_spaces_[0-9a-f]{8}$/);
  });

  it('clamps a 10 MB result, and the server and Lich go on', async () => {
    const connection = attachment.connections.get('fake');
    const direct = await connection?.call_tool('big', {});
    expect(direct?.ok).toBe(true);
    expect(direct?.output.length).toBeLessThan(100_200);
    expect(direct?.output).toMatch(/characters cut: the MCP result had 10485760/);
    const through_executor = await executor.execute('mcp_fake_big', {});
    expect(through_executor.ok).toBe(true);
    expect(through_executor.output.length).toBeLessThan(60_000);
    expect(await executor.execute('mcp_fake_hello', { value: 'after' })).toMatchObject({
      output: 'hello after',
    });
    expect(await executor.execute('mcp_noisy_hello', {})).toMatchObject({ ok: true });
    // 10 MB through a pipe and JSON.parse: seconds on a loaded machine, not a hang
  }, 60_000);

  it('times out a slow call and sends the server a cancellation', async () => {
    const connection = attachment.connections.get('fake');
    const started = Date.now();
    const result = await connection?.call_tool('slow', {}, { timeout_ms: 300 });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(result?.error).toBe(
      "'slow' on MCP server 'fake' timed out after 300 ms; the server was sent a cancellation",
    );
    await wait_for(() => connection?.stderr_tail().includes('cancelled request') === true);
  });

  it('re-registers on tools/list_changed', async () => {
    expect(registry.has('mcp_fake_extra_1')).toBe(false);
    expect(await executor.execute('mcp_fake_add_tool', {})).toMatchObject({ output: 'added' });
    await wait_for(() => registry.has('mcp_fake_extra_1'));
    expect(attachment.tools).toContain('mcp_fake_extra_1');
    expect(await executor.execute('mcp_fake_extra_1', {})).toMatchObject({
      ok: true,
      output: 'extra_1 ran',
    });
  });

  it('fails a call at once when the server crashes, restarts it, and follows its new tool list', async () => {
    const started = Date.now();
    const crashed = await executor.execute('mcp_fake_crash', {});
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(crashed.ok).toBe(false);
    expect(crashed.output).toMatch(/MCP server 'fake' went down during the call to 'crash'/);
    expect(crashed.output).toMatch(
      /\(the process exited \(exit code 7\)\); the call was not retried/,
    );
    expect(crashed.output).toMatch(/\nstderr \(last lines\):\n(.|\n)*about to crash/);
    expect(crashed.output).toMatch(/the call was not retried/);

    expect(await executor.execute('mcp_fake_hello', { value: 'again' })).toMatchObject({
      ok: true,
      output: 'hello again',
    });
    // the restarted server no longer has the tool added at run time
    expect(registry.has('mcp_fake_extra_1')).toBe(false);
    expect(registry.has('mcp_fake_hello')).toBe(true);
  });

  it('hands the child only PATH, HOME and its configured env, and keeps the token out of errors', async () => {
    const result = await executor.execute('mcp_fake_env', {});
    const env = JSON.parse(result.output) as Record<string, string>;
    const expected = ['FAKE_TOKEN', 'PATH', ...(process.env.HOME ? ['HOME'] : [])].sort();
    expect(Object.keys(env).sort()).toEqual(expected);
    expect(env.FAKE_TOKEN).toBe(TOKEN);
    const refused = await executor.execute('mcp_fake_nope_not_registered', {});
    expect(refused.ok).toBe(false);
    const unknown = await attachment.connections.get('fake')?.call_tool('unknown', {});
    expect(unknown?.error).toMatch(
      /'unknown' on MCP server 'fake' failed: .*Unknown tool: unknown/,
    );
  });
});

describe('a server that cannot come back', () => {
  it('backs off between restarts and fails fast while the wait exceeds the call timeout', async () => {
    const work = await temp_dir();
    const registry = new ToolRegistry();
    const executor = new ToolExecutor(registry, { work_dir: work.path });
    const attachment = await attach_mcp(
      catalog_of({
        flaky: fake('once', { env: { FAKE_MARKER: join(work.path, 'started') } }),
      }),
      registry,
    );
    try {
      const connection = attachment.connections.get('flaky');
      expect(attachment.connected).toEqual(['flaky']);
      expect((await executor.execute('mcp_flaky_crash', {})).output).toMatch(/went down/);
      // first restart (after 200 ms): the server refuses to start
      const restart = await executor.execute('mcp_flaky_hello', {});
      expect(restart.ok).toBe(false);
      expect(restart.output).toMatch(
        /MCP server 'flaky' exited \(exit code 4\) before answering initialize/,
      );
      expect(restart.output).toContain('refusing to start again');
      expect(connection?.state).toBe('down');
      // the next wait (400 ms) is longer than this call's 300 ms: fail at once, no spawn
      const started = Date.now();
      const waiting = await connection?.call_tool('hello', {}, { timeout_ms: 300 });
      expect(Date.now() - started).toBeLessThan(100);
      expect(waiting?.output).toMatch(
        /MCP server 'flaky' is down \(.*\); the next restart is in 1 s/s,
      );
    } finally {
      await attachment.close();
      await work.remove();
    }
  });
});

describe('attach options', () => {
  it('never connects when tools_enabled is empty', async () => {
    const registry = new ToolRegistry();
    const attachment = await attach_mcp(
      catalog_of({ a: fake('normal'), b: { command: 'lich-no-such-command-4713' } }),
      registry,
      { tools_enabled: [] },
    );
    expect(attachment.connected).toEqual([]);
    expect(attachment.failed).toEqual([]);
    expect(attachment.skipped).toEqual(['a', 'b']);
    expect(registry.names()).toEqual([]);
  });

  it('registers only the enabled tools and leaves servers without any unconnected', async () => {
    const registry = new ToolRegistry();
    const attachment = await attach_mcp(
      catalog_of({ a: fake('normal'), b: { command: 'lich-no-such-command-4714' } }),
      registry,
      { tools_enabled: ['read_file', 'mcp_a_hello', 'mcp_a_e*'] },
    );
    try {
      expect(attachment.connected).toEqual(['a']);
      expect(attachment.failed).toEqual([]);
      expect(attachment.skipped).toEqual(['b']);
      expect(registry.names().sort()).toEqual(['mcp_a_env', 'mcp_a_hello']);
    } finally {
      await attachment.close();
    }
  });

  it('honours tools_include and tools_exclude', async () => {
    const registry = new ToolRegistry();
    const attachment = await attach_mcp(
      catalog_of({
        a: fake('normal', { tools_include: ['h*', 'env', 'big'], tools_exclude: ['big'] }),
      }),
      registry,
    );
    try {
      expect(registry.names().sort()).toEqual(['mcp_a_env', 'mcp_a_hello']);
    } finally {
      await attachment.close();
    }
  });

  it('resolves a name taken by another tool predictably', async () => {
    const registry = new ToolRegistry();
    const catalog = catalog_of({
      a: fake('normal'),
      a_hello: fake('normal', { tools_include: ['x'] }),
    });
    // a builtin-like tool already holds the name the server's tool would get
    registry.register({
      name: 'mcp_a_hello',
      description: 'taken',
      parameters: (await import('zod')).z.object({}),
      execute: async () => 'taken',
    });
    const first = await attach_mcp(catalog, registry);
    const name = first.tools.find((tool) => tool.startsWith('mcp_a_hello_'));
    await first.close();
    const second = await attach_mcp(catalog, registry);
    try {
      expect(name).toMatch(/^mcp_a_hello_[0-9a-f]{8}$/);
      expect(second.tools).toContain(name);
    } finally {
      await second.close();
    }
  });

  it('stops everything when the signal is already aborted', async () => {
    const registry = new ToolRegistry();
    const controller = new AbortController();
    controller.abort();
    const attachment = await attach_mcp(catalog_of({ a: fake('normal') }), registry, {
      signal: controller.signal,
    });
    expect(attachment.connected).toEqual([]);
    expect(attachment.failed[0]?.error).toMatch(/aborted/);
    expect(registry.names()).toEqual([]);
  });
});
