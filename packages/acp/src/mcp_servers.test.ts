import { describe, expect, it } from 'vitest';
import { acp_mcp_catalog } from './mcp_servers.js';

describe('acp_mcp_catalog', () => {
  it('maps stdio, http and sse servers onto the catalog', () => {
    const { catalog, warnings } = acp_mcp_catalog([
      {
        name: 'everything',
        command: '/usr/bin/node',
        args: ['e.js', 'stdio'],
        env: [{ name: 'K', value: 'v' }],
      },
      {
        type: 'http',
        name: 'remote',
        url: 'http://127.0.0.1:9/mcp',
        headers: [{ name: 'Authorization', value: 'Bearer t' }],
      },
      { type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] },
    ]);
    expect(warnings).toEqual([]);
    expect(catalog).toEqual({
      everything: {
        command: '/usr/bin/node',
        args: ['e.js', 'stdio'],
        env: { K: 'v' },
        enabled: true,
      },
      remote: {
        url: 'http://127.0.0.1:9/mcp',
        transport: 'streamable_http',
        headers: { Authorization: 'Bearer t' },
        enabled: true,
      },
      old: { url: 'http://127.0.0.1:9/sse', transport: 'sse', enabled: true },
    });
  });

  it('fits names to the pattern, keeps them apart, and leaves out what the catalog refuses', () => {
    const { catalog, warnings } = acp_mcp_catalog([
      { name: 'My Server!', command: 'a', args: [], env: [] },
      { name: 'My Server?', command: 'b', args: [], env: [] },
      { type: 'http', name: 'bad', url: 'ftp://x', headers: [] },
    ]);
    expect(Object.keys(catalog)).toEqual(['My_Server_', 'My_Server__2']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("MCP server 'bad' left out");
  });
});
