import { describe, expect, it } from 'vitest';
import { describe_tool_call } from './tool_display.js';

const W = '/work/proj';

describe('describe_tool_call', () => {
  it('gives each builtin its kind, title and absolute locations', () => {
    expect(describe_tool_call('read_file', { path: 'src/a.ts', offset: 40 }, W)).toEqual({
      title: 'Read src/a.ts',
      kind: 'read',
      locations: [{ path: '/work/proj/src/a.ts', line: 40 }],
      content: [],
    });
    expect(describe_tool_call('list_dir', {}, W)).toMatchObject({
      title: 'List .',
      kind: 'search',
      locations: [{ path: W }],
    });
    expect(describe_tool_call('glob', { pattern: '**/*.ts' }, W)).toMatchObject({
      title: 'Find **/*.ts',
      kind: 'search',
    });
    expect(describe_tool_call('grep', { pattern: 'TODO', path: 'src' }, W)).toMatchObject({
      title: 'Search TODO',
      kind: 'search',
      locations: [{ path: '/work/proj/src' }],
    });
    expect(describe_tool_call('terminal', { command: 'git status\n&& ls' }, W)).toMatchObject({
      title: 'git status && ls',
      kind: 'execute',
    });
    expect(describe_tool_call('run_tests', {}, W)).toMatchObject({
      title: 'Run the tests',
      kind: 'execute',
    });
  });

  it("shows Lich's own tools: a fetch, a subagent, a plan to approve", () => {
    expect(describe_tool_call('web_fetch', { url: 'https://docs.python.org/3/' }, W)).toMatchObject(
      {
        title: 'Fetch https://docs.python.org/3/',
        kind: 'fetch',
      },
    );
    expect(
      describe_tool_call('task', { description: 'find the bug', subagent_type: 'reviewer' }, W),
    ).toMatchObject({ title: 'Subagent reviewer: find the bug' });
    expect(describe_tool_call('exit_plan_mode', { plan: '1. read' }, W)).toMatchObject({
      title: 'Approve the plan',
      kind: 'think',
      content: [{ type: 'content', content: { type: 'text', text: '1. read' } }],
    });
  });

  it('shows the diff of edit_file and write_file', () => {
    expect(
      describe_tool_call('edit_file', { path: 'a.txt', old_text: 'x', new_text: 'y' }, W).content,
    ).toEqual([{ type: 'diff', path: '/work/proj/a.txt', oldText: 'x', newText: 'y' }]);
    expect(
      describe_tool_call('write_file', { path: '/work/proj/b.txt', content: 'new' }, W),
    ).toEqual({
      title: 'Write /work/proj/b.txt',
      kind: 'edit',
      locations: [{ path: '/work/proj/b.txt' }],
      content: [{ type: 'diff', path: '/work/proj/b.txt', oldText: null, newText: 'new' }],
    });
  });

  it('calls MCP and unknown tools other, plan tools think, and never throws on odd args', () => {
    expect(describe_tool_call('mcp_everything_echo', { message: 'hi' }, W)).toEqual({
      title: 'mcp_everything_echo',
      kind: 'other',
      locations: [],
      content: [],
    });
    expect(describe_tool_call('mcp_tasks_update_plan', {}, W)).toMatchObject({
      kind: 'think',
      title: 'Update the plan',
    });
    expect(describe_tool_call('read_file', '{not json', W)).toMatchObject({
      title: 'Read a file',
      locations: [],
    });
    expect(describe_tool_call('edit_file', null, W).content).toEqual([]);
  });
});
