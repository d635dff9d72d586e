import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  add_mcp_server,
  list_mcp_servers,
  remove_mcp_server,
  set_mcp_server_enabled,
  work_dir_config_path,
} from './config_edit.js';

let work_dir: string;
let config_path: string;

beforeEach(async () => {
  work_dir = await mkdtemp(join(tmpdir(), 'lich-mcp-config-'));
  config_path = work_dir_config_path(work_dir);
});

afterEach(async () => {
  await rm(work_dir, { recursive: true, force: true });
});

async function read_config(): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(config_path, 'utf8')) as Record<string, unknown>;
}

describe('config edits', () => {
  it('adds to a missing config, creating .lich/config.json owner-only', async () => {
    const result = await add_mcp_server(work_dir, 'files', {
      command: 'npx',
      args: ['-y', 'fs', '.'],
    });
    expect(result).toEqual({ ok: true, path: config_path });
    expect(await read_config()).toEqual({
      mcp_servers: { files: { command: 'npx', args: ['-y', 'fs', '.'] } },
    });
    expect((await stat(config_path)).mode & 0o077).toBe(0);
  });

  it('keeps the other keys and servers untouched, and leaves no temp file', async () => {
    await mkdir(join(work_dir, '.lich'));
    await writeFile(
      config_path,
      JSON.stringify({
        model: 'x',
        providers: [{ kind: 'ollama' }],
        mcp_servers: { a: { command: 'a' } },
      }),
    );
    expect((await add_mcp_server(work_dir, 'b', { url: 'https://example.com/mcp' })).ok).toBe(true);
    expect(await read_config()).toEqual({
      model: 'x',
      providers: [{ kind: 'ollama' }],
      mcp_servers: { a: { command: 'a' }, b: { url: 'https://example.com/mcp' } },
    });
    expect(await readdir(join(work_dir, '.lich'))).toEqual(['config.json']);
  });

  it('refuses an existing name, a bad name and an invalid server', async () => {
    await add_mcp_server(work_dir, 'a', { command: 'a' });
    expect(await add_mcp_server(work_dir, 'a', { command: 'other' })).toEqual({
      ok: false,
      error: `an MCP server named 'a' already exists in ${config_path}; remove it first or pick another name`,
    });
    expect((await add_mcp_server(work_dir, 'no spaces', { command: 'a' })).ok).toBe(false);
    const invalid = await add_mcp_server(work_dir, 'b', { command: 'a', url: 'http://x' } as never);
    expect(invalid).toMatchObject({
      ok: false,
      error: expect.stringMatching(/invalid MCP server 'b'/),
    });
    expect(await read_config()).toEqual({ mcp_servers: { a: { command: 'a' } } });
  });

  it('enables, disables and removes, with a clear error for an unknown name', async () => {
    await add_mcp_server(work_dir, 'a', { command: 'a' });
    await add_mcp_server(work_dir, 'b', { command: 'b' });
    expect((await set_mcp_server_enabled(work_dir, 'a', false)).ok).toBe(true);
    expect(await read_config()).toEqual({
      mcp_servers: { a: { command: 'a', enabled: false }, b: { command: 'b' } },
    });
    expect((await set_mcp_server_enabled(work_dir, 'a', true)).ok).toBe(true);
    expect((await remove_mcp_server(work_dir, 'b')).ok).toBe(true);
    expect(await read_config()).toEqual({ mcp_servers: { a: { command: 'a', enabled: true } } });
    expect(await remove_mcp_server(work_dir, 'zz')).toEqual({
      ok: false,
      error: `no MCP server named 'zz' in ${config_path} (known: a)`,
    });
    expect(await set_mcp_server_enabled(work_dir, 'zz', true)).toMatchObject({ ok: false });
  });

  it('lists servers without secret values', async () => {
    expect(await list_mcp_servers(work_dir)).toEqual({ ok: true, path: config_path, servers: [] });
    await add_mcp_server(work_dir, 'files', {
      command: 'npx',
      args: ['-y', 'server fs'],
      env: { TOKEN: 'very-secret-token' },
      tools_exclude: ['write_file'],
    });
    await add_mcp_server(work_dir, 'web', {
      url: 'https://me:pw@example.com/mcp?api_key=abcdef',
      headers: { Authorization: 'Bearer xyz123' },
      enabled: false,
      timeout_ms: 1000,
    });
    const listed = await list_mcp_servers(work_dir);
    expect(listed).toEqual({
      ok: true,
      path: config_path,
      servers: [
        {
          name: 'files',
          kind: 'stdio',
          enabled: true,
          target: "npx -y 'server fs'",
          env_names: ['TOKEN'],
          header_names: [],
          tools_exclude: ['write_file'],
        },
        {
          name: 'web',
          kind: 'http',
          enabled: false,
          target: 'https://me:[redacted]@example.com/mcp?api_key=[redacted]',
          env_names: [],
          header_names: ['Authorization'],
          timeout_ms: 1000,
        },
      ],
    });
    expect(JSON.stringify(listed)).not.toMatch(/very-secret-token|xyz123|abcdef/);
  });

  it('marks an invalid entry in the listing', async () => {
    await mkdir(join(work_dir, '.lich'));
    await writeFile(
      config_path,
      JSON.stringify({ mcp_servers: { odd: { command: 'x', timeout_ms: -5 } } }),
    );
    const listed = await list_mcp_servers(work_dir);
    expect(listed.ok && listed.servers[0]?.problem).toMatch(/timeout_ms/);
  });

  it('never overwrites a config it cannot parse', async () => {
    await mkdir(join(work_dir, '.lich'));
    await writeFile(config_path, '{ "model": ');
    const result = await add_mcp_server(work_dir, 'a', { command: 'a' });
    expect(result).toMatchObject({
      ok: false,
      error: expect.stringMatching(/is not valid JSON.*nothing was changed/),
    });
    expect(await readFile(config_path, 'utf8')).toBe('{ "model": ');
    await writeFile(config_path, '{ "mcp_servers": [] }');
    expect(await list_mcp_servers(work_dir)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/must be an object/),
    });
    await writeFile(config_path, '[]');
    expect(await remove_mcp_server(work_dir, 'a')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/JSON object/),
    });
  });

  it('keeps the mode of an existing file', async () => {
    await mkdir(join(work_dir, '.lich'));
    await writeFile(config_path, '{}', { mode: 0o640 });
    await add_mcp_server(work_dir, 'a', { command: 'a' });
    expect((await stat(config_path)).mode & 0o777).toBe(0o640);
  });
});
