// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} references as config files write them
import { describe, expect, it } from 'vitest';
import { backoff_ms } from './backoff.js';
import { expand_env, expand_env_record } from './expand_env.js';
import { LineTail } from './line_tail.js';
import { parse_listed_tool } from './listed_tool.js';
import { matches_any, prefix_could_be_enabled, tool_wanted } from './tool_filter.js';
import { child_env } from './transport.js';

describe('expand_env', () => {
  const source = { TOKEN: 't0k', EMPTY: '' };
  it('expands ${VAR} and ${VAR:-fallback}, listing what is missing', () => {
    expect(expand_env('Bearer ${TOKEN}', source)).toEqual({ value: 'Bearer t0k', missing: [] });
    expect(expand_env('${EMPTY:-x}/${NOPE:-y}', source)).toEqual({ value: 'x/y', missing: [] });
    expect(expand_env('a${NOPE}b', source)).toEqual({ value: 'ab', missing: ['NOPE'] });
    expect(expand_env('$TOKEN stays', source).value).toBe('$TOKEN stays');
    expect(expand_env_record({ A: '${TOKEN}', B: '${GONE}' }, source)).toEqual({
      values: { A: 't0k', B: '' },
      missing: ['GONE'],
    });
  });
});

describe('child_env', () => {
  it('is PATH, HOME and the configured variables; the SDK defaults are removed', () => {
    const env = child_env(
      { API_KEY: 'k' },
      { PATH: '/bin', HOME: '/h', USER: 'me', SECRET: 's' },
      'linux',
    );
    const present = Object.entries(env).filter(([, value]) => value !== undefined);
    expect(Object.fromEntries(present)).toEqual({ PATH: '/bin', HOME: '/h', API_KEY: 'k' });
    expect('USER' in env && env.USER).toBe(undefined);
  });
});

describe('tool filters', () => {
  it('matches exact names and * patterns', () => {
    expect(matches_any('read_file', ['read_file'])).toBe(true);
    expect(matches_any('read_files', ['read_file'])).toBe(false);
    expect(matches_any('mcp_gh_list', ['mcp_gh_*'])).toBe(true);
    expect(matches_any('a.b', ['a?b'])).toBe(false);
  });

  it('lets tools_exclude win over tools_include', () => {
    expect(tool_wanted('x', {})).toBe(true);
    expect(tool_wanted('x', { tools_include: ['y'] })).toBe(false);
    expect(tool_wanted('x', { tools_include: ['*'], tools_exclude: ['x'] })).toBe(false);
  });

  it('tells whether a server could have an enabled tool', () => {
    expect(prefix_could_be_enabled('mcp_gh_', ['read_file'])).toBe(false);
    expect(prefix_could_be_enabled('mcp_gh_', ['mcp_gh_list'])).toBe(true);
    expect(prefix_could_be_enabled('mcp_gh_', ['mcp_*'])).toBe(true);
    expect(prefix_could_be_enabled('mcp_gh_', ['*_list'])).toBe(true);
    expect(prefix_could_be_enabled('mcp_gh_', ['mcp_ghx_*'])).toBe(false);
  });
});

describe('parse_listed_tool', () => {
  it('sanitises the schema for the model', () => {
    const result = parse_listed_tool(
      {
        name: 't',
        title: 'T',
        inputSchema: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          required: ['a'],
        },
      },
      's',
    );
    expect(result).toEqual({
      ok: true,
      tool: {
        name: 't',
        description: 'T',
        input_schema: { type: 'object', required: ['a'], properties: {} },
      },
    });
  });

  it('rejects schemas that are not objects', () => {
    expect(parse_listed_tool({ name: 't', inputSchema: { type: 'array' } }, 's')).toMatchObject({
      ok: false,
      name: 't',
    });
    expect(
      parse_listed_tool({ name: 't', inputSchema: { type: 'object', properties: [] } }, 's'),
    ).toMatchObject({ ok: false });
    expect(parse_listed_tool({ name: 't', inputSchema: { required: 'a' } }, 's')).toMatchObject({
      ok: false,
    });
    expect(parse_listed_tool({ inputSchema: {} }, 's')).toMatchObject({ ok: false, name: '?' });
    expect(parse_listed_tool('t', 's')).toMatchObject({ ok: false });
  });

  it('gives a tool without description a generic one', () => {
    const result = parse_listed_tool({ name: 't', inputSchema: {} }, 's');
    expect(result.ok && result.tool.description).toBe("Tool 't' of the MCP server 's'.");
  });
});

describe('LineTail', () => {
  it('keeps the last lines, bounded', () => {
    const tail = new LineTail({ max_lines: 2, max_line_chars: 5 });
    tail.push('one\ntwo\nthr');
    tail.push('ee\nfourteen\n');
    expect(tail.text()).toBe('three\nfourt…');
    tail.push('x'.repeat(100));
    expect(tail.text()).toBe('three\nfourt…\nxxxxx…');
  });
});

describe('backoff_ms', () => {
  it('doubles from 200 ms up to 30 s', () => {
    expect([0, 1, 2, 3, 20].map(backoff_ms)).toEqual([0, 200, 400, 800, 30_000]);
  });
});
