/**
 * Lich's MCP client against the reference servers from npm, run as real child processes:
 * server-everything over stdio, Streamable HTTP and SSE, and server-filesystem over stdio.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolExecutor, ToolRegistry } from '@lich/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attach_mcp, type McpAttachment, parse_mcp_catalog } from '../src/index.js';
import {
  closed_port,
  EVERYTHING,
  FILESYSTEM,
  start_everything_http,
  stop_child,
  temp_dir,
  wait_for,
} from './helpers.js';

const SECRET = 'hunter2-very-secret-value';

describe('reference servers over stdio', () => {
  let work: Awaited<ReturnType<typeof temp_dir>>;
  let registry: ToolRegistry;
  let executor: ToolExecutor;
  let attachment: McpAttachment;
  const warnings: string[] = [];

  beforeAll(async () => {
    work = await temp_dir();
    await writeFile(join(work.path, 'notes.txt'), 'the owl flies at midnight\n');
    const parsed = parse_mcp_catalog({
      everything: {
        command: process.execPath,
        args: [EVERYTHING, 'stdio'],
        env: { LICH_TEST_SECRET: SECRET },
      },
      files: { command: process.execPath, args: [FILESYSTEM, work.path] },
    });
    if (!parsed.ok) throw new Error(parsed.error);
    registry = new ToolRegistry();
    executor = new ToolExecutor(registry, { work_dir: work.path });
    attachment = await attach_mcp(parsed.catalog, registry, {
      work_dir: work.path,
      on_warning: (message) => warnings.push(message),
    });
  });

  afterAll(async () => {
    await attachment?.close();
    await work?.remove();
  });

  it('connects both servers and lists their tools as mcp_<server>_<tool>', () => {
    expect(attachment.connected).toEqual(['everything', 'files']);
    expect(attachment.failed).toEqual([]);
    const names = registry.names();
    for (const name of [
      'mcp_everything_echo',
      'mcp_everything_get-sum',
      'mcp_everything_trigger-long-running-operation',
      'mcp_files_read_text_file',
      'mcp_files_list_directory',
    ]) {
      expect(names).toContain(name);
    }
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const echo = registry.definitions(['mcp_everything_echo'])[0];
    expect(echo?.description).toBe('Echoes back the input string');
    expect(echo?.parameters).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
    expect(echo?.parameters).not.toHaveProperty('$schema');
  });

  it('follows tools/list_changed: the tool everything adds after initialize gets registered', async () => {
    await wait_for(() => registry.has('mcp_everything_simulate-research-query'));
  });

  it('calls echo and get-sum through the executor', async () => {
    const echo = await executor.execute('mcp_everything_echo', { message: 'hello lich' });
    expect(echo).toMatchObject({ ok: true, output: 'Echo: hello lich' });
    // the model's "2" is coerced by the executor against the server's own schema
    const sum = await executor.execute('mcp_everything_get-sum', { a: 2, b: '3' });
    expect(sum).toMatchObject({ ok: true, output: 'The sum of 2 and 3 is 5.' });
  });

  it('reads a file through the filesystem server', async () => {
    const result = await executor.execute('mcp_files_read_text_file', {
      path: join(work.path, 'notes.txt'),
    });
    expect(result.ok).toBe(true);
    expect(result.output).toContain('the owl flies at midnight');
  });

  it('turns a failing tool into ok: false with the server message', async () => {
    const missing = await executor.execute('mcp_files_read_text_file', {
      path: join(work.path, 'no-such-file.txt'),
    });
    expect(missing.ok).toBe(false);
    expect(missing.output).toMatch(/ENOENT|no such file/i);
    const bad = await executor.execute('mcp_everything_get-sum', { a: 1, b: 'not a number' });
    expect(bad.ok).toBe(false);
    expect(bad.output).toMatch(/expected number/);
  });

  it('describes images, resource links and embedded resources', async () => {
    const image = await executor.execute('mcp_everything_get-tiny-image', {});
    expect(image.output).toMatch(/\[image: image\/png, \d+(\.\d)? (B|KB)\]/);
    // and the picture itself passes through, for a model that can see (#35)
    expect(image.images).toHaveLength(1);
    expect(image.images?.[0]).toMatchObject({ type: 'image', media_type: 'image/png' });
    expect(
      Buffer.from(image.images?.[0]?.data ?? '', 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const links = await executor.execute('mcp_everything_get-resource-links', { count: 2 });
    expect(links.output).toContain('[resource link: ');
    expect(links.output).toContain('<demo://resource/dynamic/');
    const reference = await executor.execute('mcp_everything_get-resource-reference', {});
    expect(reference.output).toMatch(
      /\[resource: <demo:\/\/resource\/dynamic\/text\/1> \(text\/plain, \d+ B\)\]/,
    );
    expect(reference.output).toContain('Resource 1: This is a plaintext resource');
  });

  it('gives the child only PATH, HOME and the configured env', async () => {
    const result = await executor.execute('mcp_everything_get-env', {});
    const env = JSON.parse(result.output) as Record<string, string>;
    expect(Object.keys(env).sort()).toEqual(
      ['HOME', 'LICH_TEST_SECRET', 'PATH'].filter((key) => key !== 'HOME' || process.env.HOME),
    );
    expect(env.LICH_TEST_SECRET).toBe(SECRET);
  });

  it('times out a slow call, sends a cancellation and keeps the server', async () => {
    const connection = attachment.connections.get('everything');
    if (connection === undefined) throw new Error('no connection');
    const started = Date.now();
    const result = await connection.call_tool(
      'trigger-long-running-operation',
      { duration: 5, steps: 5 },
      { timeout_ms: 300 },
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/timed out after 300 ms; the server was sent a cancellation/);
    const echo = await executor.execute('mcp_everything_echo', { message: 'still here' });
    expect(echo.output).toBe('Echo: still here');
  });

  it('honours the run abort signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const result = await executor.execute(
      'mcp_everything_trigger-long-running-operation',
      { duration: 5, steps: 5 },
      { signal: controller.signal },
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.ok).toBe(false);
  });

  it('fails a call at once when the server is killed mid-call, then restarts it on next use', async () => {
    const connection = attachment.connections.get('everything');
    const pid = connection?.pid;
    if (connection === undefined || pid === undefined) throw new Error('no running server');
    setTimeout(() => process.kill(pid, 'SIGKILL'), 300);
    const started = Date.now();
    const result = await executor.execute('mcp_everything_trigger-long-running-operation', {
      duration: 10,
      steps: 5,
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/MCP server 'everything' went down during the call/);
    expect(result.output).toMatch(/not retried/);
    expect(connection.state).toBe('down');
    expect(warnings.some((warning) => warning.includes("'everything' went down"))).toBe(true);

    const again = await executor.execute('mcp_everything_echo', { message: 'back' });
    expect(again).toMatchObject({ ok: true, output: 'Echo: back' });
    expect(connection.state).toBe('ready');
    expect(connection.pid).not.toBe(pid);
    // the other server never noticed
    const listed = await executor.execute('mcp_files_list_allowed_directories', {});
    expect(listed.ok).toBe(true);
  });

  it('never shows a configured secret in error text', async () => {
    const connection = attachment.connections.get('everything');
    expect(connection?.stderr_tail()).not.toContain(SECRET);
    for (const warning of warnings) expect(warning).not.toContain(SECRET);
  });

  it('unregisters its tools on close', async () => {
    const other = new ToolRegistry();
    const parsed = parse_mcp_catalog({
      files: { command: process.execPath, args: [FILESYSTEM, work.path] },
    });
    if (!parsed.ok) throw new Error(parsed.error);
    const second = await attach_mcp(parsed.catalog, other, { work_dir: work.path });
    expect(other.names().length).toBeGreaterThan(5);
    await second.close();
    expect(other.names()).toEqual([]);
    expect(second.connections.size).toBe(0);
  });
});

describe('server-everything over HTTP', () => {
  let http: ChildProcess | undefined;
  let sse: ChildProcess | undefined;
  let http_port = 0;
  let sse_port = 0;
  const attachments: McpAttachment[] = [];

  beforeAll(async () => {
    const [streamable, legacy] = await Promise.all([
      start_everything_http('streamableHttp'),
      start_everything_http('sse'),
    ]);
    http = streamable.child;
    http_port = streamable.port;
    sse = legacy.child;
    sse_port = legacy.port;
  });

  afterAll(async () => {
    await Promise.all(attachments.map((attachment) => attachment.close()));
    await Promise.all([stop_child(http), stop_child(sse)]);
  });

  it('lists and calls tools over Streamable HTTP', async () => {
    const registry = new ToolRegistry();
    const parsed = parse_mcp_catalog({
      web: { url: `http://127.0.0.1:${http_port}/mcp`, headers: { 'X-Lich-Test': 'yes' } },
    });
    if (!parsed.ok) throw new Error(parsed.error);
    const attachment = await attach_mcp(parsed.catalog, registry);
    attachments.push(attachment);
    expect(attachment.connected).toEqual(['web']);
    expect(registry.names()).toContain('mcp_web_echo');
    const executor = new ToolExecutor(registry, { work_dir: process.cwd() });
    expect(await executor.execute('mcp_web_echo', { message: 'over http' })).toMatchObject({
      ok: true,
      output: 'Echo: over http',
    });
    expect(await executor.execute('mcp_web_get-sum', { a: 40, b: 2 })).toMatchObject({
      ok: true,
      output: 'The sum of 40 and 2 is 42.',
    });
  });

  it('lists and calls tools over the legacy SSE transport', async () => {
    const registry = new ToolRegistry();
    const parsed = parse_mcp_catalog({
      old: { url: `http://127.0.0.1:${sse_port}/sse`, transport: 'sse' },
    });
    if (!parsed.ok) throw new Error(parsed.error);
    const attachment = await attach_mcp(parsed.catalog, registry);
    attachments.push(attachment);
    expect(attachment.connected).toEqual(['old']);
    const executor = new ToolExecutor(registry, { work_dir: process.cwd() });
    expect(await executor.execute('mcp_old_echo', { message: 'over sse' })).toMatchObject({
      ok: true,
      output: 'Echo: over sse',
    });
  });

  it('fails a call at once when the HTTP server dies, and reconnects once it is back', async () => {
    const first = await start_everything_http('streamableHttp');
    let second: Awaited<ReturnType<typeof start_everything_http>> | undefined;
    const registry = new ToolRegistry();
    const parsed = parse_mcp_catalog({ site: { url: `http://127.0.0.1:${first.port}/mcp` } });
    if (!parsed.ok) throw new Error(parsed.error);
    const attachment = await attach_mcp(parsed.catalog, registry);
    attachments.push(attachment);
    try {
      const executor = new ToolExecutor(registry, { work_dir: process.cwd() });
      setTimeout(() => first.child.kill('SIGKILL'), 300);
      const started = Date.now();
      const result = await executor.execute('mcp_site_trigger-long-running-operation', {
        duration: 10,
        steps: 5,
      });
      // at once: well before the 10 s the operation would take
      expect(Date.now() - started).toBeLessThan(9_000);
      expect(result.output).toMatch(/MCP server 'site' went down during the call/);
      // the kill lands either mid-response (the socket closes) or between requests (refused)
      expect(result.output).toMatch(/ECONNREFUSED|stopped answering|other side closed/);
      // still gone: the restart fails with a clear error
      const gone = await executor.execute('mcp_site_echo', { message: 'hello?' });
      expect(gone.output).toMatch(
        /MCP server 'site' could not be reached at http:\/\/127\.0\.0\.1:\d+\/mcp/,
      );
      // back on the same port: the next use (after its backoff) opens a new session
      second = await start_everything_http('streamableHttp', first.port);
      expect(await executor.execute('mcp_site_echo', { message: 'back' })).toMatchObject({
        ok: true,
        output: 'Echo: back',
      });
    } finally {
      await attachment.close();
      await stop_child(first.child);
      await stop_child(second?.child);
    }
  });

  it('reports an unreachable HTTP server as failed, quickly', async () => {
    const registry = new ToolRegistry();
    const port = await closed_port();
    const parsed = parse_mcp_catalog({
      gone: { url: `http://127.0.0.1:${port}/mcp`, timeout_ms: 5_000 },
    });
    if (!parsed.ok) throw new Error(parsed.error);
    const started = Date.now();
    const attachment = await attach_mcp(parsed.catalog, registry);
    attachments.push(attachment);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(attachment.connected).toEqual([]);
    expect(attachment.failed[0]?.server).toBe('gone');
    expect(attachment.failed[0]?.error).toBe(
      `MCP server 'gone' could not be reached at http://127.0.0.1:${port}/mcp: fetch failed (ECONNREFUSED)`,
    );
  });
});
