import type { HostEvent, HostEventPayloads, HostEventType, SessionInfo } from '@lich/agent';
import { describe, expect, it } from 'vitest';
import { replay_history } from './history_replay.js';
import { SessionUpdateMapper } from './update_mapping.js';

let seq = 0;
function event<K extends HostEventType>(type: K, payload: HostEventPayloads[K]): HostEvent {
  seq += 1;
  return { session_id: 's', epoch: 'e', seq, type, payload } as HostEvent;
}

const INFO: SessionInfo = {
  session_id: 's',
  title: 'one',
  path: null,
  work_dir: '/w',
  model: 'm',
  provider: 'p',
  created: '2026-01-01T00:00:00.000Z',
  updated: '2026-01-01T00:00:00.000Z',
  live: true,
  busy: false,
  queued: 0,
  approval_mode: 'default',
  usage_total: { input_tokens: 0, output_tokens: 0 },
};

describe('SessionUpdateMapper', () => {
  it("shows what a task call's subagent does now, in that call's content", () => {
    const mapper = new SessionUpdateMapper('/w');
    mapper.map(
      event('tool.start', {
        turn_id: 't',
        tool_call_id: 'task1',
        name: 'task',
        args: { description: 'find the bug', prompt: 'look' },
      }),
    );
    const base = {
      turn_id: 't',
      depth: 1,
      tool_call_id: 'task1',
      session_id: 'child',
      parent_session_id: 's',
    };
    const shown = (update: unknown) =>
      (update as { content: { content: { text: string } }[] }).content[0]?.content.text;
    const reading = mapper.map(
      event('subagent.activity', {
        ...base,
        tool: 'read_file',
        args: { path: '/w/src/app.ts' },
        tool_count: 1,
      }),
    );
    expect(reading).toMatchObject([{ sessionUpdate: 'tool_call_update', toolCallId: 'task1' }]);
    expect(shown(reading[0])).toMatch(/src\/app\.ts · 1 tool call so far$/);
    const thinking = mapper.map(event('subagent.activity', { ...base, tool: null, tool_count: 2 }));
    expect(shown(thinking[0])).toBe('thinking · 2 tool calls so far');
    // a call the editor was never told of gets no update
    expect(
      mapper.map(
        event('subagent.activity', { ...base, tool_call_id: 'unknown', tool: null, tool_count: 0 }),
      ),
    ).toEqual([]);
  });

  it('sends a non-streamed answer and reasoning at message.completed, but never twice', () => {
    const mapper = new SessionUpdateMapper('/w');
    const completed = event('message.completed', {
      turn_id: 't',
      message: { role: 'assistant', content: 'whole answer', reasoning: 'thought' },
    });
    expect(mapper.map(completed)).toEqual([
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'thought' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'whole answer' } },
    ]);
    expect(mapper.map(event('message.delta', { turn_id: 't', text: 'streamed' }))).toHaveLength(1);
    expect(mapper.map(completed)).toEqual([
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'thought' } },
    ]);
  });

  it('ends a failed tool call with its output, and a plan tool sends the plan', () => {
    const mapper = new SessionUpdateMapper('/w');
    const args = { todos: [{ content: 'step one', status: 'in_progress' }] };
    const started = mapper.map(
      event('tool.start', { turn_id: 't', tool_call_id: 'c', name: 'mcp_x_todo_write', args }),
    );
    expect(started.map((update) => update.sessionUpdate)).toEqual(['tool_call', 'plan']);
    expect(started[1]).toEqual({
      sessionUpdate: 'plan',
      entries: [{ content: 'step one', status: 'in_progress', priority: 'medium' }],
    });
    const ended = mapper.map(
      event('tool.end', {
        turn_id: 't',
        tool_call_id: 'c',
        name: 'mcp_x_todo_write',
        ok: false,
        output: '',
        error: 'boom',
        duration_ms: 2,
      }),
    );
    expect(ended).toEqual([
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c',
        status: 'failed',
        content: [{ type: 'content', content: { type: 'text', text: 'boom' } }],
        rawOutput: { output: '', error: 'boom' },
      },
    ]);
  });

  it('sends usage only with a context size, and mode or title changes only when they change', () => {
    const mapper = new SessionUpdateMapper('/w', { mode: 'default', title: 'one' });
    const usage = { input_tokens: 1, output_tokens: 1 };
    expect(mapper.map(event('usage.update', { turn_id: 't', usage, usage_total: usage }))).toEqual(
      [],
    );
    expect(mapper.map(event('session.info', INFO))).toEqual([]);
    expect(
      mapper.map(event('session.info', { ...INFO, approval_mode: 'yolo', title: 'two' })),
    ).toEqual([
      { sessionUpdate: 'current_mode_update', currentModeId: 'yolo' },
      { sessionUpdate: 'session_info_update', title: 'two', updatedAt: INFO.updated },
    ]);
    expect(mapper.map(event('turn.started', { turn_id: 't', input: 'x', kind: 'prompt' }))).toEqual(
      [],
    );
  });
});

describe('replay_history', () => {
  it('marks a call without a result failed and keeps the diff of a file write', () => {
    const updates = replay_history(
      [
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'a', name: 'write_file', arguments: '{"path":"x.txt","content":"hi"}' },
            { id: 'b', name: 'terminal', arguments: '{"command":"ls"}' },
          ],
        },
        { role: 'tool', tool_call_id: 'a', content: 'Created x.txt' },
      ],
      '/w',
    );
    expect(
      updates.map((update) => [
        update.sessionUpdate,
        'status' in update ? update.status : undefined,
      ]),
    ).toEqual([
      ['tool_call', 'in_progress'],
      ['tool_call', 'in_progress'],
      ['tool_call_update', 'completed'],
      ['tool_call_update', 'failed'],
    ]);
    expect(updates[0]).toMatchObject({
      content: [{ type: 'diff', path: '/w/x.txt', newText: 'hi' }],
    });
    expect(updates[2]).not.toHaveProperty('content');
  });
});
