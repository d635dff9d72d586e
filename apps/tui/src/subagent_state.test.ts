/**
 * Subagents on the TUI's screen: the reducer follows each child under its `task` call, the live
 * region shows each as one line (its calls after Ctrl+O), and the finished `task` block keeps it
 * folded with Ctrl+O printing every child of the turn in full.
 */
import type { HostEvent, HostEventPayloads, HostEventType, SessionInfo } from '@lich/agent';
import { describe, expect, it } from 'vitest';
import { block_lines } from './block_lines.js';
import { live_lines } from './live_lines.js';
import { make_palette } from './palette.js';
import { initial_state, reduce } from './state.js';
import type { TuiAction, TuiState } from './state_types.js';

const palette = make_palette({ color: false, plain: true });
const T = { turn_id: 't1' };
const usage = { input_tokens: 10, output_tokens: 5 };

function opened(): TuiState {
  const info: SessionInfo = {
    session_id: 's1',
    title: 'test',
    path: null,
    work_dir: '/w',
    model: 'fake-model',
    provider: 'openai_compat',
    created: '2026-01-01T00:00:00Z',
    updated: '2026-01-01T00:00:00Z',
    live: true,
    busy: true,
    queued: 0,
    approval_mode: 'default',
    usage_total: usage,
  };
  return reduce(initial_state(), { type: 'session_opened', info, epoch: 'e1', history: [] });
}

/** Host events of session s1 from `seq` on; `at` is 1000 ms per seq, so clocks read seconds. */
function events(from = 1) {
  let seq = from;
  return <K extends HostEventType>(type: K, payload: HostEventPayloads[K]): TuiAction => ({
    type: 'host',
    at: seq * 1000,
    event: { session_id: 's1', epoch: 'e1', seq: seq++, type, payload } as HostEvent,
  });
}

function task_call(id: string, description: string) {
  return {
    ...T,
    tool_call_id: id,
    name: 'task',
    args: { description, prompt: `do ${description}` },
  };
}

function child(id: string, session_id: string) {
  return { ...T, depth: 1, tool_call_id: id, session_id, parent_session_id: 's1' };
}

function live(state: TuiState, now: number): string[] {
  return live_lines({ state, palette, width: 80, max_lines: 40, now });
}

/** Two children in parallel, the first one two calls in, the second still thinking. */
function two_running(): TuiState {
  const e = events();
  return [
    e('turn.started', { ...T, input: 'look around', kind: 'prompt' }),
    e('tool.start', task_call('c1', 'find the loader')),
    e('tool.start', task_call('c2', 'count the tests')),
    e('subagent.started', {
      ...child('c1', 's2'),
      description: 'find the loader',
      subagent_type: 'general',
    }),
    e('subagent.started', {
      ...child('c2', 's3'),
      description: 'count the tests',
      subagent_type: 'explore',
    }),
    e('subagent.activity', { ...child('c1', 's2'), tool: null, tool_count: 0 }),
    e('subagent.activity', {
      ...child('c1', 's2'),
      tool: 'glob',
      args: { pattern: '**/*.ts' },
      tool_count: 1,
    }),
    // a grandchild's event (its parent is s2, not the session on screen) is s2's business
    e('subagent.started', {
      ...T,
      depth: 2,
      tool_call_id: 'c1',
      session_id: 's9',
      parent_session_id: 's2',
      description: 'grandchild',
      subagent_type: 'general',
    }),
    e('subagent.activity', {
      ...child('c1', 's2'),
      tool: 'read_file',
      args: { path: 'src/load.ts' },
      tool_count: 2,
    }),
  ].reduce(reduce, opened());
}

describe('subagents in the TUI state', () => {
  it('follows each child under its task call: its current call, tool count and clock', () => {
    const state = two_running();
    expect(state.turn?.subagents.map((view) => [view.session_id, view.tool_count])).toEqual([
      ['s2', 2],
      ['s3', 0],
    ]);
    expect(state.turn?.subagents[0]?.current).toEqual({
      tool: 'read_file',
      args: { path: 'src/load.ts' },
    });
    const lines = live(state, 14_000);
    // each task call, and under it its child folded to one line
    expect(lines).toEqual([
      expect.stringContaining('task: find the loader'),
      '  ⎿ general: find the loader · read_file src/load.ts · 2 tools · 10.0s · Ctrl+O',
      expect.stringContaining('task: count the tests'),
      '  ⎿ explore: count the tests · thinking · 0 tools · 9.0s',
    ]);
    expect(lines.join('\n')).not.toContain('grandchild');
  });

  it('Ctrl+O while children run shows their calls, and again folds them', () => {
    const state = reduce(two_running(), { type: 'expand' });
    expect(state.subagents_expanded).toBe(true);
    expect(state.blocks.at(-1)?.kind).not.toBe('expanded');
    const lines = live(state, 14_000);
    expect(lines.slice(1, 4)).toEqual([
      '  ⎿ general: find the loader · read_file src/load.ts · 2 tools · 10.0s',
      '      → glob **/*.ts',
      '      → read_file src/load.ts',
    ]);
    expect(live(reduce(state, { type: 'expand' }), 14_000)).toHaveLength(4);
  });

  it('a finished task call keeps its child folded in its block; Ctrl+O prints all of the turn', () => {
    // two_running's events are seq 1 to 9; these follow a few seconds later
    const e = events(20);
    let state: TuiState = { ...two_running(), last_seq: 19 };
    state = [
      e('subagent.completed', {
        ...child('c1', 's2'),
        ok: true,
        stopped_reason: 'final',
        usage,
        cost_usd: 0.01,
      }),
      e('tool.end', {
        ...T,
        tool_call_id: 'c1',
        name: 'task',
        ok: true,
        output: "Subagent 'general' answered:\n\nThe loader is src/load.ts.",
        duration_ms: 19_000,
      }),
      e('subagent.completed', {
        ...child('c2', 's3'),
        ok: false,
        stopped_reason: 'aborted',
        usage,
        cost_usd: null,
      }),
      e('tool.end', {
        ...T,
        tool_call_id: 'c2',
        name: 'task',
        ok: false,
        output: 'The subagent was stopped.',
        error: 'The subagent was stopped.',
        duration_ms: 20_000,
      }),
    ].reduce(reduce, state);
    expect(state.turn?.subagents).toEqual([]);
    const blocks = state.blocks.filter((block) => block.kind === 'tool');
    expect(blocks.map((block) => block_lines(block, palette, 80))).toEqual([
      [
        '✓ task: find the loader · 19.0s',
        '  ⎿ general: find the loader · done · 2 tools · 16.0s · Ctrl+O',
      ],
      [
        '✗ task: count the tests · 20.0s',
        '  ⎿ explore: count the tests · stopped · 0 tools · 17.0s · Ctrl+O',
      ],
    ]);
    state = reduce(state, { type: 'expand' });
    const expanded = state.blocks.at(-1);
    expect(expanded?.kind).toBe('expanded');
    if (expanded?.kind !== 'expanded') return;
    expect(expanded.title).toBe('2 subagents');
    expect(expanded.text).toBe(
      [
        'general: find the loader — done · 2 tools · 16.0s · session s2',
        '  → glob **/*.ts',
        '  → read_file src/load.ts',
        '',
        '  The loader is src/load.ts.',
        '',
        'explore: count the tests — stopped · 0 tools · 17.0s · session s3',
        '',
        '  The subagent was stopped.',
      ].join('\n'),
    );
  });

  it('an interrupted turn ends its running children as interrupted, folded', () => {
    const e = events(10);
    const state = reduce(
      reduce(two_running(), { type: 'expand' }),
      e('turn.completed', { ...T, stop_reason: 'aborted', usage, final: null, turns_used: 1 }),
    );
    expect(state.subagents_expanded).toBe(false);
    const tools = state.blocks.filter((block) => block.kind === 'tool');
    expect(tools.map((block) => block_lines(block, palette, 80)[1])).toEqual([
      '  ⎿ general: find the loader · interrupted · 2 tools · Ctrl+O',
      '  ⎿ explore: count the tests · interrupted · 0 tools · Ctrl+O',
    ]);
  });
});
