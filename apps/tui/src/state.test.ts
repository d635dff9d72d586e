import type { HostEvent, HostEventPayloads, HostEventType, SessionInfo } from '@lich/agent';
import { HOST_EVENT_TYPES } from '@lich/agent';
import { describe, expect, it } from 'vitest';
import { initial_state, reduce } from './state.js';
import type { TuiAction, TuiState } from './state_types.js';

const EPOCH = 'e1';

function info(overrides: Partial<SessionInfo> = {}): SessionInfo {
  return {
    session_id: 's1',
    title: 'test',
    path: null,
    work_dir: '/w',
    model: 'fake-model',
    provider: 'openai_compat',
    created: '2026-01-01T00:00:00Z',
    updated: '2026-01-01T00:00:00Z',
    live: true,
    busy: false,
    queued: 0,
    approval_mode: 'default',
    usage_total: { input_tokens: 0, output_tokens: 0 },
    ...overrides,
  };
}

/** Builds host events of session s1 with growing seq numbers. */
function events(start = 1, epoch = EPOCH) {
  let seq = start;
  return <K extends HostEventType>(type: K, payload: HostEventPayloads[K]): TuiAction => ({
    type: 'host',
    at: 1000 + seq,
    event: { session_id: 's1', epoch, seq: seq++, type, payload } as HostEvent,
  });
}

function opened(): TuiState {
  return reduce(initial_state(), {
    type: 'session_opened',
    info: info(),
    epoch: EPOCH,
    history: [],
  });
}

function run(state: TuiState, actions: TuiAction[]): TuiState {
  return actions.reduce(reduce, state);
}

const T = { turn_id: 't1' };
const usage = { input_tokens: 10, output_tokens: 5 };

function kinds(state: TuiState): string[] {
  return state.blocks.map((block) => {
    switch (block.kind) {
      case 'user':
        return `user(${block.via}):${block.text}`;
      case 'answer':
      case 'reasoning':
        return `${block.kind}:${block.text}`;
      case 'tool':
        return `tool:${block.tool.name}:${block.tool.ok ?? (block.tool.interrupted ? 'interrupted' : '?')}`;
      case 'notice':
        return `notice(${block.level}):${block.text}`;
      case 'command':
        return `command:${block.name}:${block.output}`;
      case 'turn_end':
        return `turn_end:${block.stop_reason}${block.error ? `:${block.error}` : ''}`;
      case 'checkpoint':
        return `checkpoint:${block.prompt}`;
      default:
        return `expanded:${block.title}`;
    }
  });
}

describe('reduce: a turn from start to end', () => {
  it('streams text into a live tail and moves finished paragraphs into blocks', () => {
    const e = events();
    let state = run(opened(), [
      e('turn.started', { ...T, input: 'hi', kind: 'prompt' }),
      e('message.delta', { ...T, text: 'First para' }),
      e('message.delta', { ...T, text: 'graph.\n\nSecond' }),
    ]);
    expect(state.turn?.text).toBe('Second');
    expect(kinds(state)).toEqual(['user(prompt):hi', 'answer:First paragraph.']);
    state = reduce(state, e('message.delta', { ...T, text: ' one.\n\nThird' }));
    expect(kinds(state)).toEqual([
      'user(prompt):hi',
      'answer:First paragraph.',
      'answer:Second one.',
    ]);
    expect(state.turn?.text).toBe('Third');
    state = run(state, [
      e('message.completed', {
        ...T,
        message: { role: 'assistant', content: 'First paragraph.\n\nSecond one.\n\nThird.' },
      }),
      e('usage.update', {
        ...T,
        usage,
        usage_total: usage,
        context_tokens: 300,
        context_window: 1000,
      }),
      e('turn.completed', { ...T, stop_reason: 'final', usage, final: 'x', turns_used: 1 }),
    ]);
    expect(kinds(state)).toEqual([
      'user(prompt):hi',
      'answer:First paragraph.',
      'answer:Second one.',
      'answer:Third.',
    ]);
    expect(state.turn).toBeNull();
    expect(state.turn).toBeNull();
    expect(state.status).toMatchObject({
      usage_total: usage,
      context_tokens: 300,
      context_window: 1000,
    });
    expect(state.last_seq).toBe(7);
  });

  it('keeps a code fence whole in the live tail until it closes', () => {
    const e = events();
    const state = run(opened(), [
      e('turn.started', { ...T, input: 'code', kind: 'prompt' }),
      e('message.delta', { ...T, text: 'Here:\n\n```ts\nconst a = 1;\n\nconst b = 2;\n' }),
    ]);
    expect(kinds(state)).toEqual(['user(prompt):code', 'answer:Here:']);
    expect(state.turn?.text).toBe('```ts\nconst a = 1;\n\nconst b = 2;\n');
  });

  it('shows reasoning before the answer, and tools in the order they ran', () => {
    const e = events();
    const state = run(opened(), [
      e('turn.started', { ...T, input: 'go', kind: 'prompt' }),
      e('reasoning.delta', { ...T, text: 'let me ' }),
      e('reasoning.delta', { ...T, text: 'look' }),
      e('message.delta', { ...T, text: 'Looking.' }),
      e('tool.start', { ...T, tool_call_id: 'c1', name: 'read_file', args: { path: 'a.ts' } }),
      e('tool.start', { ...T, tool_call_id: 'c2', name: 'grep', args: { pattern: 'x' } }),
    ]);
    expect(kinds(state)).toEqual(['user(prompt):go', 'reasoning:let me look', 'answer:Looking.']);
    expect(state.turn?.tools.map((tool) => tool.tool_call_id)).toEqual(['c1', 'c2']);
    expect(state.turn?.tools[0]?.started_at).toBe(1005);
    const e2 = events(7);
    const after = run(state, [
      e2('tool.end', {
        ...T,
        tool_call_id: 'c2',
        name: 'grep',
        ok: false,
        output: 'bad',
        duration_ms: 3,
      }),
      e2('tool.end', {
        ...T,
        tool_call_id: 'c1',
        name: 'read_file',
        ok: true,
        output: 'text',
        duration_ms: 9,
        sandboxed: true,
      }),
      e2('message.delta', { ...T, text: 'Done.' }),
      e2('turn.completed', { ...T, stop_reason: 'final', usage, final: 'Done.', turns_used: 2 }),
    ]);
    expect(kinds(after)).toEqual([
      'user(prompt):go',
      'reasoning:let me look',
      'answer:Looking.',
      'tool:grep:false',
      'tool:read_file:true',
      'answer:Done.',
    ]);
    const read = after.blocks[4];
    expect(read?.kind === 'tool' && read.tool).toMatchObject({
      args: { path: 'a.ts' },
      duration_ms: 9,
      output: 'text',
    });
    expect(after.status.sandboxed).toBe(true);
  });

  it('fills in text a stream did not bring from message.completed and turn.completed', () => {
    const e = events();
    const joined_late = run(opened(), [
      e('message.completed', {
        ...T,
        message: { role: 'assistant', content: 'Whole answer', reasoning: 'hm' },
      }),
    ]);
    expect(kinds(joined_late)).toEqual(['reasoning:hm', 'answer:Whole answer']);
    const e2 = events();
    const final_only = run(opened(), [
      e2('turn.started', { ...T, input: 'q', kind: 'prompt' }),
      e2('turn.completed', {
        ...T,
        stop_reason: 'final',
        usage,
        final: 'From final',
        turns_used: 1,
      }),
    ]);
    expect(kinds(final_only)).toEqual(['user(prompt):q', 'answer:From final']);
  });

  it('ends a turn that did not answer with a line saying why, and running tools as interrupted', () => {
    const e = events();
    const state = run(opened(), [
      e('turn.started', { ...T, input: 'q', kind: 'prompt' }),
      e('tool.start', { ...T, tool_call_id: 'c1', name: 'terminal', args: { command: 'sleep 9' } }),
      e('turn.completed', { ...T, stop_reason: 'aborted', usage, final: null, turns_used: 1 }),
    ]);
    expect(kinds(state)).toEqual([
      'user(prompt):q',
      'tool:terminal:interrupted',
      'turn_end:aborted',
    ]);
    const e2 = events();
    const failed = run(opened(), [
      e2('turn.started', { ...T, input: 'q', kind: 'prompt' }),
      e2('turn.completed', {
        ...T,
        stop_reason: 'error',
        usage,
        final: null,
        turns_used: 1,
        error: 'HTTP 500',
      }),
    ]);
    expect(kinds(failed)).toEqual(['user(prompt):q', 'turn_end:error:HTTP 500']);
  });
});

describe('reduce: every host event type', () => {
  it('handles each type the host can send', () => {
    const e = events();
    const samples: { [K in HostEventType]: HostEventPayloads[K] } = {
      'session.info': info({ model: 'other', busy: true, usage_total: usage }),
      'turn.started': { ...T, input: 'hi', kind: 'prompt' },
      'reasoning.delta': { ...T, text: 'think' },
      'message.delta': { ...T, text: 'answer' },
      'message.completed': { ...T, message: { role: 'assistant', content: 'answer' } },
      'message.steered': { ...T, text: 'steer' },
      'tool.start': { ...T, tool_call_id: 'c', name: 'glob', args: {} },
      'tool.running': { ...T, tool_call_id: 'c', name: 'glob' },
      'permission.request': {
        ...T,
        request_id: 'r',
        tool_call_id: 'c',
        tool: 'glob',
        args: {},
        title: 'glob: *',
        options: ['allow_once', 'reject_once'],
      },
      'permission.resolved': { ...T, request_id: 'r', option: 'allow_once' },
      'tool.end': { ...T, tool_call_id: 'c', name: 'glob', ok: true, output: '', duration_ms: 1 },
      'usage.update': { ...T, usage, usage_total: usage },
      'provider.failover': {
        ...T,
        kind: 'retry',
        provider: 'p',
        model: 'm',
        attempt: 2,
        reason: '429',
      },
      compaction: { ...T, ok: true, before_count: 30, after_count: 8 },
      'checkpoint.created': { ...T, checkpoint_id: 'c1', kind: 'before_prompt', prompt: 1 },
      'session.rewound': { status: 'rewound', redo: false, summary: 'Rewound.' },
      'todo.updated': { ...T, items: [{ content: 'read the code', status: 'in_progress' }] },
      'plan.proposed': { ...T, request_id: 'r2', tool_call_id: 'c2', plan: '1. read' },
      'subagent.started': {
        ...T,
        depth: 1,
        tool_call_id: 'c3',
        session_id: 's2',
        parent_session_id: 's1',
        description: 'find it',
        subagent_type: 'general',
      },
      'subagent.activity': {
        ...T,
        depth: 1,
        tool_call_id: 'c3',
        session_id: 's2',
        parent_session_id: 's1',
        tool: 'read_file',
        args: { path: 'a.ts' },
        tool_count: 1,
      },
      'subagent.completed': {
        ...T,
        depth: 1,
        tool_call_id: 'c3',
        session_id: 's2',
        parent_session_id: 's1',
        ok: true,
        stopped_reason: 'final',
        usage,
        cost_usd: 0.01,
      },
      'budget.notice': {
        ...T,
        kind: 'spending',
        level: 'warning',
        message: '80% of the session budget ($0.80 of $1.00) is spent',
        scope: 'session',
      },
      error: { message: 'disk full' },
      'turn.completed': { ...T, stop_reason: 'final', usage, final: 'answer', turns_used: 1 },
    };
    expect(Object.keys(samples).sort()).toEqual([...HOST_EVENT_TYPES].sort());
    let state = opened();
    for (const type of Object.keys(samples) as HostEventType[]) {
      const next = reduce(state, e(type, samples[type] as never));
      expect(next, type).not.toBe(state);
      state = next;
    }
    expect(state.session?.model).toBe('other');
    expect(kinds(state)).toEqual([
      'user(prompt):hi',
      'reasoning:think',
      'answer:answer',
      'user(steer):steer',
      'notice(info):allowed once: glob: *',
      'tool:glob:true',
      'notice(warn):retrying p/m (attempt 2): 429',
      'notice(info):history compacted: 30 → 8 messages',
      'checkpoint:1',
      'notice(warn):80% of the session budget ($0.80 of $1.00) is spent',
      'notice(error):disk full',
    ]);
    expect(state.status.retries).toBe(1);
  });

  it('counts failovers apart from retries and says where the run moved', () => {
    const e = events();
    const state = run(opened(), [
      e('provider.failover', {
        ...T,
        kind: 'failover',
        provider: 'openai',
        model: 'a',
        to_provider: 'anthropic',
        to_model: 'b',
        reason: '401',
      }),
    ]);
    expect(state.status).toMatchObject({ retries: 0, failovers: 1 });
    expect(state.status.last_provider_note).toBe('openai/a failed, moving to anthropic/b: 401');
  });
});

describe('reduce: ordering, replay and reconnect', () => {
  it('ignores events already applied (a replay overlapping what was seen)', () => {
    const e = events();
    const a = e('turn.started', { ...T, input: 'hi', kind: 'prompt' });
    const b = e('message.delta', { ...T, text: 'Hello' });
    const once = run(opened(), [a, b]);
    expect(run(once, [a, b])).toBe(once);
    expect(once.turn?.text).toBe('Hello');
  });

  it('ignores events of another session', () => {
    const state = opened();
    const other: TuiAction = {
      type: 'host',
      at: 0,
      event: { session_id: 's2', epoch: EPOCH, seq: 1, type: 'error', payload: { message: 'x' } },
    };
    expect(reduce(state, other)).toBe(state);
  });

  it('holds back an event past a gap and asks for a resync from the last one in order', () => {
    const e = events();
    const state = run(opened(), [e('error', { message: 'one' })]);
    const after = reduce(state, events(5)('error', { message: 'five' }));
    expect(after.needs_resync).toBe(true);
    expect(after.last_seq).toBe(1);
    expect(after.blocks).toHaveLength(1);
    // the replay from seq 1 brings 2..5 in order
    const replay = events(2);
    const caught_up = run({ ...after, needs_resync: false }, [
      replay('error', { message: 'two' }),
      replay('error', { message: 'three' }),
    ]);
    expect(caught_up.last_seq).toBe(3);
    expect(caught_up.needs_resync).toBe(false);
  });

  it('holds back events of another epoch after some were seen (a host restart)', () => {
    const state = run(opened(), [events()('error', { message: 'one' })]);
    const restarted = reduce(state, events(1, 'e2')('error', { message: 'again' }));
    expect(restarted.needs_resync).toBe(true);
    expect(restarted.epoch).toBe(EPOCH);
    expect(restarted.blocks).toHaveLength(1);
  });

  it('continues a turn from replayed events after a reconnect that lost nothing', () => {
    const e = events();
    let state = run(opened(), [
      e('turn.started', { ...T, input: 'hi', kind: 'prompt' }),
      e('message.delta', { ...T, text: 'Hel' }),
    ]);
    state = reduce(state, { type: 'resynced', epoch: EPOCH, truncated: false, at: 0 });
    // the replay starts after seq 2; seq 2 comes again and is skipped
    const replay = events(2);
    state = run(state, [
      replay('message.delta', { ...T, text: 'Hel' }),
      replay('message.delta', { ...T, text: 'lo' }),
    ]);
    expect(state.turn?.text).toBe('Hello');
  });

  it('after a truncated reconnect finishes the live turn and shows the last exchange again', () => {
    const e = events();
    let state = run(opened(), [
      e('turn.started', { ...T, input: 'hi', kind: 'prompt' }),
      e('message.delta', { ...T, text: 'Hel' }),
      e('permission.request', {
        ...T,
        request_id: 'r',
        tool_call_id: 'c',
        tool: 'terminal',
        args: {},
        title: 'terminal: ls',
        options: ['allow_once'],
      }),
    ]);
    state = reduce(state, {
      type: 'resynced',
      epoch: 'e2',
      truncated: true,
      at: 0,
      history: [
        { role: 'user', content: 'older' },
        { role: 'assistant', content: 'old answer' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'Hello there' },
      ],
    });
    expect(kinds(state)).toEqual([
      'user(prompt):hi',
      'answer:Hel',
      'notice(warn):reconnected: some events were lost; the last exchange is shown again from history',
      'user(prompt):hi',
      'answer:Hello there',
    ]);
    expect(state).toMatchObject({ turn: null, permissions: [], epoch: 'e2', last_seq: null });
    // events of the new epoch are taken from any seq
    const next = reduce(state, events(40, 'e2')('error', { message: 'new' }));
    expect(next.needs_resync).toBe(false);
    expect(next.last_seq).toBe(40);
  });

  it('renders a resumed session from its history', () => {
    const state = reduce(initial_state(), {
      type: 'session_opened',
      info: info(),
      epoch: EPOCH,
      history: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'fix it' },
        {
          role: 'assistant',
          content: '',
          reasoning: 'hmm',
          tool_calls: [
            { id: 'c1', name: 'edit_file', arguments: '{"path":"a.ts"}' },
            { id: 'c2', name: 'terminal', arguments: 'not json' },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'Edited a.ts' },
        { role: 'assistant', content: 'Fixed.' },
      ],
    });
    expect(kinds(state)).toEqual([
      'user(prompt):fix it',
      'reasoning:hmm',
      'tool:edit_file:true',
      'tool:terminal:interrupted',
      'answer:Fixed.',
    ]);
    const terminal = state.blocks[3];
    expect(terminal?.kind === 'tool' && terminal.tool.args).toBe('not json');
  });
});

describe('reduce: permissions', () => {
  const request = (id: string, title: string) => ({
    ...T,
    request_id: id,
    tool_call_id: `call-${id}`,
    tool: 'terminal',
    args: { command: title },
    title: `terminal: ${title}`,
    options: ['allow_once', 'allow_always', 'reject_once', 'reject_always'] as const,
  });

  it('queues requests in arrival order and drops each when resolved, with a line saying how', () => {
    const e = events();
    let state = run(opened(), [
      e('turn.started', { ...T, input: 'q', kind: 'prompt' }),
      e('permission.request', request('r1', 'git push')),
      e('permission.request', request('r2', 'rm x')),
      e('permission.request', request('r1', 'git push')),
    ]);
    expect(state.permissions.map((entry) => entry.request_id)).toEqual(['r1', 'r2']);
    state = run(state, [
      e('permission.resolved', { ...T, request_id: 'r1', option: 'allow_always' }),
      e('permission.resolved', { ...T, request_id: 'r2', option: 'reject_once' }),
    ]);
    expect(state.permissions).toEqual([]);
    expect(kinds(state).slice(1)).toEqual([
      'notice(info):allowed always: terminal: git push',
      'notice(warn):rejected: terminal: rm x',
    ]);
  });

  it('drops the requests of a turn that ends, and tells a cancelled one', () => {
    const e = events();
    let state = run(opened(), [
      e('turn.started', { ...T, input: 'q', kind: 'prompt' }),
      e('permission.request', request('r1', 'ls')),
      e('permission.resolved', { ...T, request_id: 'r1', option: 'cancelled' }),
      e('permission.request', request('r2', 'ls')),
    ]);
    expect(kinds(state).at(-1)).toBe('notice(warn):cancelled: terminal: ls');
    state = reduce(
      state,
      e('turn.completed', { ...T, stop_reason: 'aborted', usage, final: null, turns_used: 1 }),
    );
    expect(state.permissions).toEqual([]);
  });
});

describe('reduce: queue and steer', () => {
  it('holds a follow-up as queued until its turn starts, then shows it as said', () => {
    const e = events();
    let state = run(opened(), [
      e('turn.started', { ...T, input: 'first', kind: 'prompt' }),
      { type: 'queued', text: 'second', client_request_id: 'q1' },
      { type: 'queued', text: 'third', client_request_id: 'q2' },
    ]);
    expect(state.queued.map((entry) => entry.text)).toEqual(['second', 'third']);
    state = run(state, [
      e('message.delta', { ...T, text: 'One.' }),
      e('turn.completed', { ...T, stop_reason: 'final', usage, final: 'One.', turns_used: 1 }),
      e('turn.started', {
        turn_id: 't2',
        input: 'second',
        kind: 'follow_up',
        client_request_id: 'q1',
      }),
    ]);
    expect(state.queued.map((entry) => entry.text)).toEqual(['third']);
    expect(kinds(state)).toEqual(['user(prompt):first', 'answer:One.', 'user(follow_up):second']);
    expect(state.turn?.turn_id).toBe('t2');
    state = reduce(state, { type: 'unqueued', client_request_id: 'q2' });
    expect(state.queued).toEqual([]);
  });

  it('shows steering where the run took it, between the text before and after', () => {
    const e = events();
    let state = run(opened(), [
      e('turn.started', { ...T, input: 'go', kind: 'prompt' }),
      e('message.delta', { ...T, text: 'Working' }),
      { type: 'steer_sent', text: 'use tabs' },
    ]);
    expect(state.steering).toEqual(['use tabs']);
    state = run(state, [
      e('message.steered', { ...T, text: 'use tabs' }),
      e('message.delta', { ...T, text: 'With tabs.' }),
      e('turn.completed', { ...T, stop_reason: 'final', usage, final: null, turns_used: 2 }),
    ]);
    expect(state.steering).toEqual([]);
    expect(kinds(state)).toEqual([
      'user(prompt):go',
      'answer:Working',
      'user(steer):use tabs',
      'answer:With tabs.',
    ]);
  });

  it('ends a turn left open when the next one starts', () => {
    const e = events();
    const state = run(opened(), [
      e('turn.started', { ...T, input: 'a', kind: 'prompt' }),
      e('message.delta', { ...T, text: 'partial' }),
      e('turn.started', { turn_id: 't2', input: 'b', kind: 'prompt' }),
    ]);
    expect(kinds(state)).toEqual(['user(prompt):a', 'answer:partial', 'user(prompt):b']);
  });
});

describe('reduce: local actions', () => {
  it('clear starts a new transcript generation and keeps block ids growing', () => {
    const e = events();
    const before = run(opened(), [e('error', { message: 'x' })]);
    const cleared = reduce(before, { type: 'clear' });
    expect(cleared.generation).toBe(1);
    expect(cleared.blocks).toEqual([]);
    expect(cleared.session).toBeNull();
    expect(cleared.next_id).toBe(before.next_id);
  });

  it('leaving keeps the transcript and marks the live region to be taken away', () => {
    const e = events();
    const before = run(opened(), [e('error', { message: 'x' })]);
    const left = reduce(before, { type: 'leave' });
    expect(left.leaving).toBe(true);
    expect(left.blocks).toBe(before.blocks);
    expect(before.leaving).toBe(false);
  });

  it('keeps reasoning collapsed by default and prints it in full on expand', () => {
    const e = events();
    let state = run(opened(), [
      e('reasoning.delta', { ...T, text: 'line one\nline two' }),
      e('message.delta', { ...T, text: 'ok' }),
    ]);
    const block = state.blocks[0];
    expect(block?.kind === 'reasoning' && block.expanded).toBe(false);
    state = reduce(state, { type: 'expand' });
    expect(kinds(state).at(-1)).toBe('expanded:reasoning');
    expect(reduce(state, { type: 'expand' }).blocks.at(-1)).toMatchObject({
      text: 'nothing to expand',
    });
    state = reduce(state, { type: 'toggle_reasoning' });
    state = reduce(state, e('reasoning.delta', { turn_id: 't9', text: 'more' }));
    state = reduce(state, e('message.delta', { turn_id: 't9', text: 'x' }));
    const shown = state.blocks.at(-1);
    expect(shown?.kind === 'reasoning' && shown.expanded).toBe(true);
  });

  it('offers the diff of the last edit for expanding', () => {
    const e = events();
    const state = run(opened(), [
      e('tool.start', { ...T, tool_call_id: 'c', name: 'edit_file', args: { path: 'a.ts' } }),
      e('tool.end', {
        ...T,
        tool_call_id: 'c',
        name: 'edit_file',
        ok: true,
        output: 'Edited a.ts\n-x\n+y',
        duration_ms: 2,
      }),
    ]);
    expect(state.expandable).toEqual({
      title: 'edit_file a.ts',
      text: 'Edited a.ts\n-x\n+y',
      diff: true,
    });
  });

  it('records notices and command output as blocks', () => {
    const state = run(opened(), [
      { type: 'notice', level: 'error', text: 'unknown command /frob' },
      { type: 'command_output', name: 'model', ok: true, output: 'model: x' },
    ]);
    expect(kinds(state)).toEqual(['notice(error):unknown command /frob', 'command:model:model: x']);
  });

  it('never mutates the state it is given', () => {
    const e = events();
    const state = opened();
    const frozen = JSON.stringify(state);
    run(state, [
      e('turn.started', { ...T, input: 'hi', kind: 'prompt' }),
      e('message.delta', { ...T, text: 'a\n\nb' }),
      { type: 'clear' },
    ]);
    expect(JSON.stringify(state)).toBe(frozen);
  });
});

describe('reduce: queue matching', () => {
  it('takes one queued entry per turn, by request id or else by text', () => {
    const e = events();
    let state = run(opened(), [
      { type: 'queued', text: 'same', client_request_id: 'a' },
      { type: 'queued', text: 'same', client_request_id: 'b' },
      { type: 'steer_sent', text: 'left over' },
      e('turn.started', { ...T, input: 'same', kind: 'follow_up' }),
    ]);
    expect(state.queued.map((entry) => entry.client_request_id)).toEqual(['b']);
    state = run(state, [e('turn.started', { turn_id: 't2', input: 'left over', kind: 'prompt' })]);
    expect(state.steering).toEqual([]);
  });
});

describe('reduce: session picker', () => {
  it('opens on the newest session, moves within bounds and closes', () => {
    const sessions = [info({ session_id: 'a' }), info({ session_id: 'b' })];
    let state = reduce(initial_state(), { type: 'picker_open', sessions });
    expect(state.picker?.selected).toBe(0);
    state = reduce(state, { type: 'picker_move', by: 5 });
    expect(state.picker?.selected).toBe(1);
    state = reduce(state, { type: 'picker_move', by: -9 });
    expect(state.picker?.selected).toBe(0);
    expect(reduce(state, { type: 'picker_close' }).picker).toBeNull();
  });

  it('lists the sessions a person started, each with a count of the subagents beneath it', async () => {
    const { picker_lines } = await import('./prompt_lines.js');
    const { make_palette } = await import('./palette.js');
    const sessions = [
      info({ session_id: 'child-2', parent_session_id: 'parent', title: 'job two' }),
      info({ session_id: 'child-1', parent_session_id: 'parent', title: 'job one' }),
      info({ session_id: 'grandchild', parent_session_id: 'child-1', title: 'deeper' }),
      info({ session_id: 'parent', title: 'the conversation' }),
      info({ session_id: 'orphan', parent_session_id: 'deleted', title: 'kept' }),
    ];
    const state = reduce(initial_state(), { type: 'picker_open', sessions });
    expect(state.picker?.sessions.map((session) => session.session_id)).toEqual([
      'parent',
      'orphan',
    ]);
    expect(state.picker?.subagents).toEqual({ parent: 3 });
    const lines = picker_lines(
      state.picker as NonNullable<TuiState['picker']>,
      make_palette({ color: false, plain: true }),
      100,
      10,
    );
    expect(lines[1]).toContain('the conversation · 2026-01-01 00:00 · fake-model · +3 subagents');
    expect(lines[2]).not.toContain('subagent');
  });
});

describe('the status line shows dollars next to tokens', () => {
  it('keeps the session cost usage.update carries, and the line shows it (or $? when unknown)', async () => {
    const { status_line } = await import('./prompt_lines.js');
    const { make_palette } = await import('./palette.js');
    const e = events();
    const read = { input_tokens: 1200, output_tokens: 40, cache_read_tokens: 1000 };
    const state = run(opened(), [
      e('usage.update', {
        ...T,
        usage: read,
        usage_total: read,
        cost_usd: 0.0123,
        cost_total_usd: 0.0123,
      }),
    ]);
    expect(state.status.cost_total_usd).toBe(0.0123);
    const palette = make_palette({ color: false });
    const line = status_line(
      { session: info(), status: state.status, mode: 'local' },
      palette,
      120,
    );
    expect(line).toContain('↑1.2k ↓40 ⟳1.0k');
    expect(line).toContain('$0.01 ·');
    const unknown = run(state, [
      e('usage.update', { ...T, usage, usage_total: usage, cost_usd: null, cost_total_usd: null }),
    ]);
    expect(
      status_line({ session: info(), status: unknown.status, mode: 'local' }, palette, 120),
    ).toContain('$?');
  });
});

describe('reduce: the task list', () => {
  it('follows todo.updated, and a resumed session reads its list from the history', async () => {
    const { live_lines } = await import('./live_lines.js');
    const { make_palette } = await import('./palette.js');
    const plain_palette = () => make_palette({ color: false, plain: true });
    const e = events();
    const items = [
      { content: 'read the code', status: 'completed' as const },
      { content: 'write the fix', status: 'in_progress' as const },
      { content: 'run the tests', status: 'pending' as const },
    ];
    const state = run(opened(), [e('todo.updated', { ...T, items })]);
    expect(state.todos).toEqual(items);
    const lines = live_lines({ state, palette: plain_palette(), width: 60, max_lines: 20, now: 0 });
    expect(lines).toEqual([
      'Tasks 1/3',
      '  ✔ read the code',
      '  ▸ write the fix',
      '  ○ run the tests',
    ]);
    const done = run(state, [
      e('todo.updated', {
        ...T,
        items: items.map((item) => ({ ...item, status: 'completed' as const })),
      }),
    ]);
    expect(
      live_lines({ state: done, palette: plain_palette(), width: 60, max_lines: 20, now: 0 }),
    ).toEqual([]);
    const resumed = reduce(initial_state(), {
      type: 'session_opened',
      info: info(),
      epoch: EPOCH,
      history: [
        { role: 'user', content: 'fix it' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'c1', name: 'todo_write', arguments: JSON.stringify({ todos: items }) },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'Task list updated' },
      ],
    });
    expect(resumed.todos).toEqual(items);
  });
});
