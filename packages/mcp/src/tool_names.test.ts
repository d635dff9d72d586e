import { describe, expect, it } from 'vitest';
import { safe_mcp_tool_name, tool_name_hash } from './tool_names.js';

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

describe('safe_mcp_tool_name', () => {
  it('keeps a valid name as written', () => {
    expect(safe_mcp_tool_name('everything', 'get-sum')).toBe('mcp_everything_get-sum');
  });

  it('replaces bad characters and adds a hash, so near-identical names never meet', () => {
    const dotted = safe_mcp_tool_name('gh', 'repo.list');
    expect(dotted).toBe(`mcp_gh_repo_list_${tool_name_hash('gh', 'repo.list')}`);
    expect(safe_mcp_tool_name('gh', 'repo/list')).not.toBe(dotted);
    expect(safe_mcp_tool_name('gh', 'repo_list')).toBe('mcp_gh_repo_list');
    // a server's name is the user's: its bad characters become _ without a hash
    expect(safe_mcp_tool_name('my.server', 'tool')).toBe('mcp_my_server_tool');
  });

  it('shortens long names with a stable hash', () => {
    const long = 'a'.repeat(80);
    const name = safe_mcp_tool_name('server', long);
    expect(name).toHaveLength(64);
    expect(name).toMatch(VALID);
    expect(safe_mcp_tool_name('server', long)).toBe(name);
    expect(safe_mcp_tool_name('server', `${long}b`)).not.toBe(name);
  });

  it('resolves a taken name with the hash, then a counter', () => {
    const taken = new Set(['mcp_a_b_c']);
    const hashed = safe_mcp_tool_name('a', 'b_c', (name) => taken.has(name));
    expect(hashed).toBe(`mcp_a_b_c_${tool_name_hash('a', 'b_c')}`);
    taken.add(hashed);
    expect(safe_mcp_tool_name('a', 'b_c', (name) => taken.has(name))).toBe(`${hashed}_2`);
  });

  it('always gives a valid name', () => {
    for (const tool of ['', ' ', 'ü', '日本語', 'x'.repeat(200), 'a b/c.d:e']) {
      expect(safe_mcp_tool_name('s', tool)).toMatch(VALID);
    }
    expect(safe_mcp_tool_name('s'.repeat(70), 't')).toMatch(VALID);
  });
});
