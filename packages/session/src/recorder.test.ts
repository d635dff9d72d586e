import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AgentEmitter,
  type AgentEvent,
  type AssistantMessage,
  type ChatFn,
  content_text,
  type Message,
  run_conversation,
  type ToolMessage,
} from '@lich/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { read_session, read_session_messages } from './reader.js';
import { attach_recorder, SessionRecorder } from './recorder.js';
import type { SessionRecord } from './records.js';
import { INTERRUPTED_TOOL_RESULT } from './state.js';
import { SessionStore } from './store.js';

let dir: string;
let store: SessionStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lich-recorder-'));
  store = new SessionStore({ session_dir: dir });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SYSTEM: Message = { role: 'system', content: 'You are terse.' };

function assistant(content: string, calls: string[] = []): AssistantMessage {
  return calls.length === 0
    ? { role: 'assistant', content }
    : {
        role: 'assistant',
        content,
        tool_calls: calls.map((id) => ({
          id,
          name: 'read_file',
          arguments: `{"path":"${id}.txt"}`,
        })),
      };
}

function tool(id: string, content: string): ToolMessage {
  return { role: 'tool', tool_call_id: id, name: 'read_file', content };
}

function llm_end(turn: number, message: AssistantMessage, input = 10, output = 5): AgentEvent {
  return {
    type: 'llm_end',
    turn,
    message,
    finish_reason: message.tool_calls ? 'tool_calls' : 'stop',
    usage: { input_tokens: input, output_tokens: output },
    model: 'fake-model',
    duration_ms: 3,
  };
}

function tool_end(turn: number, message: ToolMessage): AgentEvent {
  return {
    type: 'tool_call_end',
    turn,
    call: { id: message.tool_call_id, name: 'read_file', arguments: '{}' },
    result: { ok: true, output: content_text(message.content), duration_ms: 1 },
    message,
  };
}

/** Emits one run's events the way the loop does: history at the end is what the events built. */
function run_events(seed: Message[], steps: AgentEvent[], max_turns = 8): AgentEvent[] {
  const history = [...seed];
  for (const step of steps) {
    if (step.type === 'llm_end' || step.type === 'tool_call_end') history.push(step.message);
    if (step.type === 'compress_end' && step.ok && step.summary_message) {
      history.splice(step.from ?? 0, (step.to ?? 0) - (step.from ?? 0), step.summary_message);
    }
  }
  const last = [...history].reverse().find((message) => message.role === 'assistant');
  return [
    { type: 'run_start', messages: seed, max_turns },
    ...steps,
    {
      type: 'run_end',
      stopped_reason: 'final',
      turns_used: steps.filter((step) => step.type === 'llm_end').length,
      final: last?.content ?? null,
      messages: history,
    },
  ];
}

function final_messages(events: AgentEvent[]): readonly Message[] {
  const end = events.at(-1);
  if (end?.type !== 'run_end') throw new Error('no run_end');
  return end.messages;
}

async function records_of(path: string): Promise<SessionRecord[]> {
  return (await read_session(path)).records;
}

describe('SessionRecorder', () => {
  it('writes a run as records and resumes to the same history', async () => {
    const handle = await store.create({
      work_dir: dir,
      model: 'fake-model',
      lich_version: '0.1.0',
    });
    const emitter = new AgentEmitter();
    const recorder = attach_recorder(emitter, handle);
    expect(recorder.session_path).toBe(handle.path);
    const call = assistant('Reading.', ['a', 'b']);
    const events = run_events(
      [SYSTEM, { role: 'user', content: 'Summarise a.txt and b.txt\nplease' }],
      [
        { type: 'llm_start', turn: 1, grace: false, context_tokens: 0 },
        llm_end(1, call, 100, 20),
        tool_end(1, tool('a', 'alpha')),
        tool_end(1, tool('b', 'beta')),
        llm_end(2, assistant('Both are Greek letters.'), 150, 30),
      ],
    );
    for (const event of events) emitter.emit(event);
    await recorder.idle();
    await handle.close();

    const records = await records_of(handle.path);
    expect(records.map((record) => record.type)).toEqual([
      'session_start',
      'run_start',
      'message',
      'message',
      'message',
      'message',
      'message',
      'message',
      'run_end',
    ]);
    const start = records[1];
    expect(start).toMatchObject({
      type: 'run_start',
      run: 1,
      kept: 0,
      seeded_count: 2,
      input: 'Summarise a.txt and b.txt please',
    });
    const end = records.at(-1);
    expect(end).toMatchObject({
      type: 'run_end',
      run: 1,
      stopped_reason: 'final',
      turns_used: 2,
      messages_count: 6,
      usage: { input_tokens: 250, output_tokens: 50 },
      usage_total: { input_tokens: 250, output_tokens: 50 },
    });
    expect(records.every((record) => record.v === 1)).toBe(true);
    expect(await read_session_messages(handle.path)).toEqual(final_messages(events));
  });

  it('a second run in the same session writes only the new messages', async () => {
    const handle = await store.create({ work_dir: dir, model: 'm', lich_version: '0.1.0' });
    const emitter = new AgentEmitter();
    const recorder = attach_recorder(emitter, handle);
    const first = run_events(
      [SYSTEM, { role: 'user', content: 'hi' }],
      [llm_end(1, assistant('hello'))],
    );
    for (const event of first) emitter.emit(event);
    const history = [...final_messages(first)];
    const second = run_events(
      [...history, { role: 'user', content: 'and again' }],
      [llm_end(1, assistant('hello again'), 7, 3)],
    );
    for (const event of second) emitter.emit(event);
    await recorder.idle();
    await handle.close();

    const records = await records_of(handle.path);
    const run_two = records.filter((record) => 'run' in record && record.run === 2);
    expect(run_two.map((record) => record.type)).toEqual([
      'run_start',
      'message',
      'message',
      'run_end',
    ]);
    expect(run_two[0]).toMatchObject({ kept: 3, seeded_count: 4, input: 'and again' });
    expect(run_two[1]).toMatchObject({
      source: 'seed',
      index: 3,
      message: { content: 'and again' },
    });
    expect(run_two[3]).toMatchObject({
      usage: { input_tokens: 7, output_tokens: 3 },
      usage_total: { input_tokens: 17, output_tokens: 8 },
    });
    expect(await read_session_messages(handle.path)).toEqual(final_messages(second));
  });

  it('continues a reopened session from a resumed history without rewriting it', async () => {
    const first_handle = await store.create({ work_dir: dir, model: 'm', lich_version: '0.1.0' });
    const first = run_events(
      [SYSTEM, { role: 'user', content: 'one' }],
      [llm_end(1, assistant('1'))],
    );
    const first_recorder = new SessionRecorder(first_handle);
    for (const event of first) first_recorder.record(event);
    await first_handle.close();

    const history = await read_session_messages(first_handle.path);
    const handle = await store.open(first_handle.id);
    expect(handle.state.runs).toBe(1);
    const recorder = new SessionRecorder(handle);
    // a history rebuilt by hand, with the same content in another key order
    const reordered = history.map(
      (message) => Object.fromEntries(Object.entries(message).reverse()) as unknown as Message,
    );
    const second = run_events(
      [...reordered, { role: 'user', content: 'two' }],
      [llm_end(1, assistant('2'))],
    );
    for (const event of second) recorder.record(event);
    await recorder.idle();
    await handle.close();
    const records = await records_of(handle.path);
    expect(records.find((record) => record.type === 'run_start' && record.run === 2)).toMatchObject(
      { kept: 3 },
    );
    expect(records.filter((record) => record.type === 'message')).toHaveLength(5);
    expect(await read_session_messages(handle.path)).toEqual(final_messages(second));
  });

  it('rewrites the seed from where it departs from the held history', async () => {
    const handle = await store.create({ work_dir: dir, model: 'm', lich_version: '0.1.0' });
    const recorder = new SessionRecorder(handle);
    const first = run_events(
      [SYSTEM, { role: 'user', content: 'one' }],
      [llm_end(1, assistant('1'))],
    );
    for (const event of first) recorder.record(event);
    const changed: Message[] = [
      { role: 'system', content: 'A new system prompt.' },
      ...final_messages(first).slice(1),
      { role: 'user', content: 'two' },
    ];
    const second = run_events(changed, [llm_end(1, assistant('2'))]);
    for (const event of second) recorder.record(event);
    await recorder.idle();
    await handle.close();
    const records = await records_of(handle.path);
    expect(records.find((record) => record.type === 'run_start' && record.run === 2)).toMatchObject(
      { kept: 0, seeded_count: 4 },
    );
    expect(await read_session_messages(handle.path)).toEqual(final_messages(second));
  });

  it('a compressed session resumes with the summary in place of what it replaced', async () => {
    const handle = await store.create({ work_dir: dir, model: 'm', lich_version: '0.1.0' });
    const recorder = new SessionRecorder(handle);
    const summary: Message = { role: 'user', content: '[Summary of earlier turns] read a and b.' };
    const events = run_events(
      [SYSTEM, { role: 'user', content: 'task' }],
      [
        llm_end(1, assistant('', ['a'])),
        tool_end(1, tool('a', 'A'.repeat(500))),
        llm_end(2, assistant('', ['b'])),
        tool_end(2, tool('b', 'B'.repeat(500))),
        { type: 'compress_start', messages_count: 6, estimated_tokens: 900 },
        {
          type: 'compress_end',
          ok: true,
          before_count: 6,
          after_count: 5,
          from: 2,
          to: 4,
          summary: 'read a and b.',
          summary_message: summary,
          usage: { input_tokens: 40, output_tokens: 9 },
        },
        llm_end(3, assistant('done')),
      ],
    );
    for (const event of events) recorder.record(event);
    await recorder.idle();
    await handle.close();

    const resumed = await read_session_messages(handle.path);
    expect(resumed).toEqual(final_messages(events));
    expect(resumed.map((message) => message.role)).toEqual([
      'system',
      'user',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(resumed[2]).toEqual(summary);
    const compress = (await records_of(handle.path)).find(
      (record) => record.type === 'compress_end',
    );
    expect(compress).toMatchObject({
      ok: true,
      from: 2,
      to: 4,
      replaced: 2,
      summary: 'read a and b.',
    });
    // the replaced messages stay in the transcript
    const text = await readFile(handle.path, 'utf8');
    expect(text).toContain('A'.repeat(500));
  });

  it('places parallel tool results in call order whatever order they finish in', async () => {
    const handle = await store.create({ work_dir: dir, model: 'm', lich_version: '0.1.0' });
    const recorder = new SessionRecorder(handle);
    const call = assistant('', ['x', 'y', 'z']);
    const seed: Message[] = [{ role: 'user', content: 'go' }];
    const events: AgentEvent[] = [
      { type: 'run_start', messages: seed, max_turns: 4 },
      llm_end(1, call),
      tool_end(1, tool('z', 'Z')),
      tool_end(1, tool('x', 'X')),
      tool_end(1, tool('y', 'Y')),
    ];
    for (const event of events) recorder.record(event);
    await recorder.idle();
    expect(await read_session_messages(handle.path)).toEqual([
      ...seed,
      call,
      tool('x', 'X'),
      tool('y', 'Y'),
      tool('z', 'Z'),
    ]);
    await handle.close();
  });

  it('answers a tool call cut off by a crash, so the history can be sent again', async () => {
    const handle = await store.create({ work_dir: dir, model: 'm', lich_version: '0.1.0' });
    const recorder = new SessionRecorder(handle);
    const call = assistant('', ['p', 'q']);
    for (const event of [
      { type: 'run_start', messages: [{ role: 'user', content: 'go' }], max_turns: 4 },
      llm_end(1, call),
      tool_end(1, tool('p', 'P')),
    ] satisfies AgentEvent[]) {
      recorder.record(event);
    }
    await recorder.idle();
    await handle.close(); // the process "died" before q finished and before run_end
    const messages = await read_session_messages(handle.path);
    expect(messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'q',
      name: 'read_file',
      content: INTERRUPTED_TOOL_RESULT,
      is_error: true,
    });
    expect(messages).toHaveLength(4);
  });

  it('records budget_exhausted and a failed compression', async () => {
    const handle = await store.create({ work_dir: dir, model: 'm', lich_version: '0.1.0' });
    const recorder = new SessionRecorder(handle);
    const events = run_events(
      [{ role: 'user', content: 'go' }],
      [
        { type: 'compress_end', ok: false, before_count: 1, after_count: 1, error: 'model down' },
        { type: 'budget_exhausted', turns_used: 1, max_turns: 1, grace: true },
        llm_end(1, assistant('wrapped up')),
      ],
      1,
    );
    for (const event of events) recorder.record(event);
    await recorder.idle();
    await handle.close();
    const records = await records_of(handle.path);
    expect(records.find((record) => record.type === 'budget_exhausted')).toMatchObject({
      turns_used: 1,
      max_turns: 1,
      grace: true,
    });
    expect(records.find((record) => record.type === 'compress_end')).toMatchObject({
      ok: false,
      error: 'model down',
    });
  });

  it('records a run that ended in an error', async () => {
    const handle = await store.create({ work_dir: dir, model: 'm', lich_version: '0.1.0' });
    const recorder = new SessionRecorder(handle);
    const seed: Message[] = [{ role: 'user', content: 'go' }];
    recorder.record({ type: 'run_start', messages: seed, max_turns: 3 });
    recorder.record({
      type: 'run_end',
      stopped_reason: 'error',
      turns_used: 0,
      final: null,
      messages: seed,
      error: 'openai_compat gpt-x: HTTP 401 invalid key',
    });
    await recorder.idle();
    await handle.close();
    expect((await records_of(handle.path)).at(-1)).toMatchObject({
      type: 'run_end',
      stopped_reason: 'error',
      error: 'openai_compat gpt-x: HTTP 401 invalid key',
    });
  });

  it('never fails the run: write failures go to on_error', async () => {
    const handle = await store.create({ work_dir: dir, model: 'm', lich_version: '0.1.0' });
    const errors: string[] = [];
    const emitter = new AgentEmitter({
      on_listener_error: () => errors.push('listener threw'),
    });
    const recorder = attach_recorder(emitter, handle, {
      on_error: (error, event) => {
        errors.push(`${event.type}: ${(error as Error).message}`);
        throw new Error('a throwing hook is contained too');
      },
    });
    await handle.close();
    for (const event of run_events(
      [{ role: 'user', content: 'go' }],
      [llm_end(1, assistant('x'))],
    )) {
      emitter.emit(event);
    }
    await recorder.idle();
    expect(errors.length).toBeGreaterThanOrEqual(3);
    expect(errors.every((text) => /closed/.test(text))).toBe(true);
    recorder.detach();
    expect(emitter.listener_count).toBe(0);
  });

  it('matches the real loop, compression and parallel tools included, with no repair records', async () => {
    const handle = await store.create({ work_dir: dir, model: 'm', lich_version: '0.1.0' });
    const emitter = new AgentEmitter();
    const recorder = attach_recorder(emitter, handle);
    let turn = 0;
    const chat: ChatFn = async (messages, tools) => {
      const last = messages.at(-1);
      if (tools.length === 0 || content_text(last?.content ?? '').startsWith('Summarise')) {
        return {
          message: { role: 'assistant', content: 'summary of the work' },
          finish_reason: 'stop',
        };
      }
      turn += 1;
      if (turn <= 3) {
        return {
          message: assistant(`step ${turn}`, [`c${turn}a`, `c${turn}b`]),
          finish_reason: 'tool_calls',
          usage: { input_tokens: 100, output_tokens: 10 },
        };
      }
      return {
        message: assistant('finished'),
        finish_reason: 'stop',
        usage: { input_tokens: 100, output_tokens: 10 },
      };
    };
    const tools = {
      async execute(_name: string, args: unknown) {
        const path = (args as { path: string }).path;
        await new Promise((resolve) => setTimeout(resolve, path.includes('a') ? 5 : 0));
        return { ok: true, output: `${path}: ${'data '.repeat(200)}`, duration_ms: 1 };
      },
    };
    const deps = {
      chat,
      tools,
      definitions: [{ name: 'read_file', description: 'read', parameters: { type: 'object' } }],
      emitter,
    };
    const first = await run_conversation(deps, [{ role: 'user', content: 'work' }], {
      max_turns: 10,
      system_prompt: 'be brief',
      context_window: 1200,
    });
    turn = 0;
    const second = await run_conversation(
      deps,
      [...first.messages, { role: 'user', content: 'more' }],
      { max_turns: 10, system_prompt: 'be brief', context_window: 1200 },
    );
    await recorder.idle();
    await handle.close();
    const records = await records_of(handle.path);
    expect(records.some((record) => record.type === 'compress_end' && record.ok)).toBe(true);
    expect(records.some((record) => record.type === 'message' && record.source === 'sync')).toBe(
      false,
    );
    expect(await read_session_messages(handle.path)).toEqual(second.messages);
    const run_ends = records.filter((record) => record.type === 'run_end');
    expect(run_ends.map((record) => record.run)).toEqual([1, 2]);
    expect(run_ends[1]?.usage_total.input_tokens).toBe(800);
  });
});
