import { describe, expect, it } from 'vitest';
import { make_config } from '../config/config_load.js';
import { checkpoint_store_of } from './checkpoint_store_of.js';
import { DEFAULT_CHECKPOINTS } from './checkpoints_schema.js';
import { parse_rewind_args } from './rewind_text.js';
import { writing_tool_test } from './writing_tools.js';

describe('the checkpoints config', () => {
  it('is on by default, off with false, and takes its settings from an object', () => {
    expect(make_config({ work_dir: '/tmp' }).checkpoints).toEqual(DEFAULT_CHECKPOINTS);
    expect(make_config({ work_dir: '/tmp', checkpoints: true }).checkpoints.enabled).toBe(true);
    expect(make_config({ work_dir: '/tmp', checkpoints: false }).checkpoints).toEqual({
      ...DEFAULT_CHECKPOINTS,
      enabled: false,
    });
    const set = make_config({
      work_dir: '/tmp',
      checkpoints: { keep_days: 7, exclude: ['*.log'] },
    });
    expect(set.checkpoints).toMatchObject({
      enabled: true,
      keep_days: 7,
      max_mb: 1024,
      exclude: ['*.log'],
    });
    expect(() => make_config({ work_dir: '/tmp', checkpoints: { max_mb: -1 } })).toThrow(/max_mb/);
  });

  it('counts the edit and command tools, MCP servers marked writes, and configured tools', () => {
    const writes = writing_tool_test(
      make_config({
        work_dir: '/tmp',
        mcp_servers: {
          files: { command: 'fs-server', writes: true },
          'web.search': { url: 'https://example.com/mcp' },
        },
        checkpoints: { tools: ['my_plugin_*'] },
      }),
    );
    for (const tool of [
      'write_file',
      'edit_file',
      'terminal',
      'run_tests',
      'mcp_files_write',
      'my_plugin_save',
    ]) {
      expect(writes(tool), tool).toBe(true);
    }
    for (const tool of ['read_file', 'grep', 'glob', 'list_dir', 'mcp_web_search_query', 'other']) {
      expect(writes(tool), tool).toBe(false);
    }
  });
});

describe('checkpoint_store_of', () => {
  it('leaves out a session folder kept in the work dir', () => {
    const inside = checkpoint_store_of(
      make_config({ work_dir: '/tmp/w', session_dir: 'logs/sessions' }),
    );
    expect(inside?.rules.is_excluded('logs/sessions', 'sessions', true)).toBe(true);
    expect(inside?.rules.is_excluded('logs/other', 'other', true)).toBe(false);
    const usual = checkpoint_store_of(make_config({ work_dir: '/tmp/w' }));
    expect(usual?.rules.is_excluded('logs/sessions', 'sessions', true)).toBe(false);
    expect(checkpoint_store_of(make_config({ work_dir: '/tmp/w', checkpoints: false }))).toBeNull();
    // a folder whose name only starts with dots is in the work dir too
    const dotted = checkpoint_store_of(
      make_config({ work_dir: '/tmp/w', session_dir: '..sessions' }),
    );
    expect(dotted?.rules.is_excluded('..sessions', '..sessions', true)).toBe(true);
  });
});

describe('parse_rewind_args', () => {
  it('reads a prompt, a scope and the flags', () => {
    expect(parse_rewind_args('')).toEqual({ list: true, request: {} });
    expect(parse_rewind_args('3')).toEqual({ list: false, request: { prompt: 3 } });
    expect(parse_rewind_args('#2 --files --dry-run')).toEqual({
      list: false,
      request: { prompt: 2, scope: 'files', dry_run: true },
    });
    expect(parse_rewind_args('2 --chat --keep').request).toEqual({
      prompt: 2,
      scope: 'conversation',
      on_conflict: 'keep',
    });
    expect(parse_rewind_args('--redo')).toEqual({ list: false, request: { redo: true } });
    expect(parse_rewind_args('1 --overwrite').request.on_conflict).toBe('overwrite');
    expect(() => parse_rewind_args('1 2')).toThrow(/one prompt/);
    expect(() => parse_rewind_args('1 --files --chat')).toThrow(/cannot go together/);
    expect(() => parse_rewind_args('--sideways')).toThrow(/unknown word/);
  });
});
