// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} references as config files write them
import { describe, expect, it } from 'vitest';
import { import_mcp_json, McpServersSchema, parse_mcp_catalog } from './catalog.js';

describe('parse_mcp_catalog', () => {
  it('accepts stdio and HTTP servers and applies enabled: true', () => {
    const result = parse_mcp_catalog({
      files: {
        command: 'npx',
        args: ['-y', 'server'],
        env: { A: '1' },
        cwd: 'sub',
        timeout_ms: 5_000,
      },
      web: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } },
      old: { url: 'http://127.0.0.1:3000/sse', transport: 'sse', enabled: false },
    });
    expect(result).toEqual({
      ok: true,
      catalog: {
        files: {
          command: 'npx',
          args: ['-y', 'server'],
          env: { A: '1' },
          cwd: 'sub',
          timeout_ms: 5_000,
          enabled: true,
        },
        web: {
          url: 'https://example.com/mcp',
          headers: { Authorization: 'Bearer x' },
          enabled: true,
        },
        old: { url: 'http://127.0.0.1:3000/sse', transport: 'sse', enabled: false },
      },
    });
  });

  it('treats an absent section as empty', () => {
    expect(parse_mcp_catalog(undefined)).toEqual({ ok: true, catalog: {} });
  });

  it('names the server and field at fault', () => {
    const negative = parse_mcp_catalog({ a: { command: 'x', timeout_ms: -1 } });
    expect(negative).toMatchObject({ ok: false });
    expect(!negative.ok && negative.error).toMatch(/^invalid mcp_servers: a\.timeout_ms: /);
    const both = parse_mcp_catalog({ a: { command: 'x', url: 'http://x' } });
    expect(!both.ok && both.error).toMatch(/a: an MCP server needs either "command".*or "url"/);
    const neither = parse_mcp_catalog({ a: {} });
    expect(!neither.ok && neither.error).toMatch(/needs either/);
    const ftp = parse_mcp_catalog({ a: { url: 'ftp://x' } });
    expect(!ftp.ok && ftp.error).toMatch(/http:\/\/ or https:\/\//);
    const typo = parse_mcp_catalog({ a: { command: 'x', enabeld: false } });
    expect(typo.ok).toBe(false);
    const name = parse_mcp_catalog({ 'bad name': { command: 'x' } });
    expect(!name.ok && name.error).toMatch(/server name/);
  });

  it('renders as JSON Schema (the agent publishes its config schema)', async () => {
    const { z } = await import('zod');
    const schema = z.toJSONSchema(McpServersSchema, { io: 'input' }) as Record<string, unknown>;
    expect(schema.type).toBe('object');
  });
});

describe('import_mcp_json', () => {
  it('converts Claude Desktop / .mcp.json entries', () => {
    const result = import_mcp_json({
      mcpServers: {
        files: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '.'],
          env: { A: 'b' },
        },
        web: {
          type: 'http',
          url: 'https://example.com/mcp',
          headers: { Authorization: 'Bearer ${TOKEN}' },
        },
        legacy: { type: 'sse', url: 'http://127.0.0.1:8080/sse' },
        windsurf: { serverUrl: 'https://example.com/windsurf' },
        streamable: { type: 'streamable-http', url: 'https://example.com/s' },
        off: { command: 'x', disabled: true },
      },
    });
    expect(result).toEqual({
      ok: true,
      servers: {
        files: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '.'],
          env: { A: 'b' },
        },
        web: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        legacy: { url: 'http://127.0.0.1:8080/sse', transport: 'sse' },
        windsurf: { url: 'https://example.com/windsurf' },
        streamable: { url: 'https://example.com/s' },
        off: { command: 'x', enabled: false },
      },
      warnings: [],
    });
  });

  it('reads JSON text and the VS Code "servers" key', () => {
    const result = import_mcp_json(
      JSON.stringify({
        servers: { gh: { type: 'stdio', command: 'gh-mcp', envFile: '.env' } },
        inputs: [],
      }),
    );
    expect(result).toEqual({
      ok: true,
      servers: { gh: { command: 'gh-mcp' } },
      warnings: ['server \'gh\': ignored "envFile"'],
    });
  });

  it('skips what it cannot convert, saying why, and keeps the rest', () => {
    const result = import_mcp_json({
      mcpServers: {
        good: { command: 'ok' },
        nothing: { args: ['x'] },
        weird: { type: 'websocket', url: 'ws://x' },
        bad_url: { url: 'not a url' },
        list: ['x'],
        'my server': { command: 'spaced' },
        my_server: { command: 'clash' },
      },
    });
    if (!result.ok) throw new Error(result.error);
    expect(Object.keys(result.servers)).toEqual(['good', 'my_server']);
    expect(result.servers.my_server).toEqual({ command: 'spaced' });
    expect(result.warnings).toEqual([
      'skipped server \'nothing\': it has neither "command" nor "url"',
      'skipped server \'weird\': unknown type "websocket"',
      "skipped server 'bad_url': url: url must be an http:// or https:// URL",
      "skipped server 'list': not an object",
      "server 'my server' imported as 'my_server'",
      "skipped server 'my_server': the name 'my_server' is already taken",
    ]);
  });

  it('refuses what is not a server file', () => {
    expect(import_mcp_json('{nope')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not valid JSON/),
    });
    expect(import_mcp_json([])).toEqual({ ok: false, error: 'expected a JSON object' });
    expect(import_mcp_json({ other: {} })).toEqual({
      ok: false,
      error: 'no "mcpServers" (or "servers") object found',
    });
  });
});
