/**
 * The ACP agent over a fake SessionHost, driven by the SDK's own client in process: the mapping
 * of every method, update, permission and stop reason, independent of the real host.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AcpServer, byte_stream, type HostSetup, serve_acp } from '../src/index.js';
import { choose, connect_client, paired_streams, type TestClient } from './acp_client.js';
import { FakeHost, type TurnScript } from './fake_host.js';

let work_dir: string;
let hosts: FakeHost[];
let setups: HostSetup[];
let server: AcpServer;
let client: TestClient;
let logs: string[];

function start(
  script?: (turn: TurnScript) => Promise<{
    stop_reason: 'final' | 'max_turns' | 'aborted' | 'refusal' | 'error';
    final?: string;
    error?: string;
  }>,
  behaviour: Parameters<typeof connect_client>[1] = {},
): void {
  const pair = paired_streams();
  server = serve_acp(byte_stream(pair.agent.output, pair.agent.input), {
    default_work_dir: work_dir,
    version: '9.9.9',
    on_log: (text) => logs.push(text),
    host_factory: async (setup) => {
      setups.push(setup);
      const host = new FakeHost(setup.work_dir, script);
      hosts.push(host);
      return host;
    },
  });
  client = connect_client(pair.client, behaviour);
}

async function new_session(cwd = work_dir, mcp_servers: never[] = []): Promise<string> {
  const response = await client.agent.request('session/new', { cwd, mcpServers: mcp_servers });
  return response.sessionId;
}

/** A turn that thinks, says something, calls edit_file after asking, and answers. */
async function tool_turn(turn: TurnScript) {
  turn.emit('reasoning.delta', { text: 'Let me look.' });
  turn.emit('message.delta', { text: 'I will edit ' });
  turn.emit('message.delta', { text: 'the file.' });
  const args = { path: 'src/a.ts', old_text: 'one', new_text: 'two' };
  turn.emit('tool.start', { tool_call_id: 'call_1', name: 'edit_file', args });
  const answer = await turn.ask('call_1', 'edit_file', args);
  const ok = answer === 'allow_once' || answer === 'allow_always';
  turn.emit('tool.end', {
    tool_call_id: 'call_1',
    name: 'edit_file',
    ok,
    output: ok ? 'Edited src/a.ts' : 'the person said no',
    duration_ms: 1,
  });
  turn.emit('usage.update', {
    usage: { input_tokens: 10, output_tokens: 5 },
    usage_total: { input_tokens: 10, output_tokens: 5 },
    context_tokens: 1234,
    context_window: 128000,
  });
  turn.emit('message.delta', { text: ok ? 'Done.' : 'Skipped.' });
  return { stop_reason: 'final' as const, final: ok ? 'Done.' : 'Skipped.' };
}

beforeEach(async () => {
  work_dir = await mkdtemp(join(tmpdir(), 'lich-acp-'));
  hosts = [];
  setups = [];
  logs = [];
});

afterEach(async () => {
  client?.close();
  server?.close();
  await server?.done;
  await rm(work_dir, { recursive: true, force: true });
});

describe('initialize', () => {
  it('advertises loadSession, embedded context, images, MCP over HTTP and SSE, list/resume/close', async () => {
    start();
    const response = await client.initialize();
    expect(response.protocolVersion).toBe(1);
    expect(response.agentInfo).toMatchObject({ name: 'lich', version: '9.9.9' });
    expect(response.agentCapabilities).toEqual({
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    });
  });

  it('refuses a session before initialize', async () => {
    start();
    await expect(
      client.agent.request('session/new', { cwd: work_dir, mcpServers: [] }),
    ).rejects.toThrow();
  });
});

describe('a prompt turn', () => {
  it('streams thought and text chunks, the tool call with its diff, asks permission, ends end_turn', async () => {
    start(tool_turn);
    await client.initialize();
    const session_id = await new_session();
    const response = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'change one to two' }],
    });
    expect(response.stopReason).toBe('end_turn');
    expect(hosts[0]?.prompts).toEqual(['change one to two']);
    const updates = client.updates_of(session_id);
    const kinds = updates.map((update) => update.sessionUpdate);
    expect(kinds).toEqual([
      'available_commands_update',
      'agent_thought_chunk',
      'agent_message_chunk',
      'agent_message_chunk',
      'tool_call',
      'tool_call_update',
      'usage_update',
      'agent_message_chunk',
    ]);
    const abs = join(work_dir, 'src/a.ts');
    expect(updates[4]).toEqual({
      sessionUpdate: 'tool_call',
      toolCallId: 'call_1',
      title: 'Edit src/a.ts',
      kind: 'edit',
      status: 'pending',
      locations: [{ path: abs }],
      content: [{ type: 'diff', path: abs, oldText: 'one', newText: 'two' }],
      rawInput: { path: 'src/a.ts', old_text: 'one', new_text: 'two' },
    });
    expect(updates[5]).toMatchObject({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_1',
      status: 'completed',
      content: [{ type: 'diff', path: abs, oldText: 'one', newText: 'two' }],
    });
    expect(updates[6]).toEqual({ sessionUpdate: 'usage_update', used: 1234, size: 128000 });
    const [request] = client.permission_requests;
    expect(request?.toolCall).toMatchObject({
      toolCallId: 'call_1',
      kind: 'edit',
      status: 'pending',
    });
    expect(request?.options.map((option) => option.kind)).toEqual([
      'allow_once',
      'allow_always',
      'reject_once',
      'reject_always',
    ]);
    expect(hosts[0]?.answers.map((answer) => answer.option)).toEqual(['allow_once']);
  });

  it('passes a rejection back to the host, and the tool call fails', async () => {
    start(tool_turn, { permission: choose('reject_once') });
    await client.initialize();
    const session_id = await new_session();
    const response = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'go' }],
    });
    expect(response.stopReason).toBe('end_turn');
    expect(hosts[0]?.answers.map((answer) => answer.option)).toEqual(['reject_once']);
    const failed = client
      .updates_of(session_id)
      .find((update) => update.sessionUpdate === 'tool_call_update');
    expect(failed).toMatchObject({
      status: 'failed',
      content: [{ type: 'content', content: { type: 'text', text: 'the person said no' } }],
    });
  });

  it('takes allow_always and reject_always as they are', async () => {
    start(tool_turn, { permission: choose('reject_always') });
    await client.initialize();
    const session_id = await new_session();
    await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'go' }],
    });
    expect(hosts[0]?.answers.map((answer) => answer.option)).toEqual(['reject_always']);
  });

  it('a cancelled permission request is a rejection', async () => {
    start(tool_turn, { permission: async () => ({ outcome: { outcome: 'cancelled' } }) });
    await client.initialize();
    const session_id = await new_session();
    await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'go' }],
    });
    expect(hosts[0]?.answers.map((answer) => answer.option)).toEqual(['reject_once']);
  });

  it('session/cancel mid-stream ends the prompt with cancelled', async () => {
    start(async (turn) => {
      turn.emit('message.delta', { text: 'streaming…' });
      await turn.aborted();
      return { stop_reason: 'aborted' };
    });
    await client.initialize();
    const session_id = await new_session();
    const prompt = client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'long task' }],
    });
    await client.wait_for_update((update) => update.sessionUpdate === 'agent_message_chunk');
    await client.agent.notify('session/cancel', { sessionId: session_id });
    expect((await prompt).stopReason).toBe('cancelled');
  });

  it('session/cancel while a permission request is open cancels it and ends cancelled', async () => {
    let asked: () => void = () => {};
    const was_asked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    start(tool_turn, {
      permission: (request) =>
        new Promise(() => {
          // never answered by the person: the cancel must end it
          void request;
          asked();
        }),
    });
    await client.initialize();
    const session_id = await new_session();
    const prompt = client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'go' }],
    });
    await was_asked;
    await client.agent.notify('session/cancel', { sessionId: session_id });
    expect((await prompt).stopReason).toBe('cancelled');
  });

  it('maps max_turns to max_turn_requests and refusal to refusal', async () => {
    const reasons = ['max_turns', 'refusal'] as const;
    let index = 0;
    start(async () => ({ stop_reason: reasons[index++] ?? 'final' }));
    await client.initialize();
    const session_id = await new_session();
    const first = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'a' }],
    });
    const second = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'b' }],
    });
    expect([first.stopReason, second.stopReason]).toEqual(['max_turn_requests', 'refusal']);
  });

  it('a failed turn answers a JSON-RPC error with the provider message', async () => {
    start(async () => ({ stop_reason: 'error', error: 'openai_compat/fake-model: HTTP 500 boom' }));
    await client.initialize();
    const session_id = await new_session();
    await expect(
      client.agent.request('session/prompt', {
        sessionId: session_id,
        prompt: [{ type: 'text', text: 'a' }],
      }),
    ).rejects.toMatchObject({ code: -32603, message: expect.stringContaining('HTTP 500 boom') });
  });

  it('a prompt to an unknown session is resource-not-found', async () => {
    start();
    await client.initialize();
    await expect(
      client.agent.request('session/prompt', {
        sessionId: 'nope',
        prompt: [{ type: 'text', text: 'a' }],
      }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it('runs a host slash command and answers its output', async () => {
    start();
    await client.initialize();
    const session_id = await new_session();
    const response = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: '/model anthropic/other-model' }],
    });
    expect(response.stopReason).toBe('end_turn');
    expect(hosts[0]?.commands_run).toEqual([{ name: 'model', args: 'anthropic/other-model' }]);
    expect(hosts[0]?.prompts).toEqual([]);
    expect(client.updates_of(session_id)).toContainEqual({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'ran /model anthropic/other-model' },
    });
  });

  it('puts embedded resources into the message as context', async () => {
    start();
    await client.initialize();
    const session_id = await new_session();
    await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [
        { type: 'text', text: 'explain' },
        { type: 'resource', resource: { uri: 'file:///w/a.ts', text: 'const a = 1;' } },
      ],
    });
    expect(hosts[0]?.prompts[0]).toBe(
      'explain\n\n<context ref="/w/a.ts">\nconst a = 1;\n</context>',
    );
  });
});

describe('sessions', () => {
  it('announces the slash commands after session/new', async () => {
    start();
    await client.initialize();
    const session_id = await new_session();
    const update = await client.wait_for_update(
      (entry) => entry.sessionUpdate === 'available_commands_update',
    );
    expect(update).toEqual({
      sessionUpdate: 'available_commands_update',
      availableCommands: [
        { name: 'clear', description: 'Start the conversation over', input: null },
        { name: 'model', description: 'Switch the model', input: { hint: '<model>' } },
      ],
    });
    expect(client.updates[0]?.sessionId).toBe(session_id);
  });

  it('answers modes and config options, and maps set_mode and set_config_option', async () => {
    start();
    await client.initialize();
    const response = await client.agent.request('session/new', { cwd: work_dir, mcpServers: [] });
    expect(response.modes?.currentModeId).toBe('default');
    expect(response.modes?.availableModes.map((mode) => mode.id)).toEqual([
      'default',
      'auto_edit',
      'plan',
      'yolo',
    ]);
    expect(response.configOptions?.map((option) => [option.id, option.currentValue])).toEqual([
      ['model', 'openai_compat/fake-model'],
      ['mode', 'default'],
    ]);
    await client.agent.request('session/set_mode', {
      sessionId: response.sessionId,
      modeId: 'yolo',
    });
    expect((await hosts[0]?.get(response.sessionId))?.approval_mode).toBe('yolo');
    await client.wait_for_update((update) => update.sessionUpdate === 'current_mode_update');
    const changed = await client.agent.request('session/set_config_option', {
      sessionId: response.sessionId,
      configId: 'model',
      value: 'anthropic/other-model',
    });
    expect(changed.configOptions[0]?.currentValue).toBe('anthropic/other-model');
    await expect(
      client.agent.request('session/set_mode', { sessionId: response.sessionId, modeId: 'chaos' }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      client.agent.request('session/set_config_option', {
        sessionId: response.sessionId,
        configId: 'model',
        value: 'nobody/none',
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('loads a stored session and replays its history as updates', async () => {
    start();
    await client.initialize();
    const seeded_id = 'stored-1';
    const seed = (target: FakeHost) => {
      target.stored.set(seeded_id, {
        info: {
          session_id: seeded_id,
          title: 'earlier',
          path: null,
          work_dir,
          model: 'fake-model',
          provider: 'openai_compat',
          created: '2026-01-01T00:00:00.000Z',
          updated: '2026-01-01T00:00:00.000Z',
          live: false,
          busy: false,
          queued: 0,
          approval_mode: 'default',
          usage_total: { input_tokens: 0, output_tokens: 0 },
        },
        history: [
          { role: 'system', content: 'you are lich' },
          { role: 'user', content: 'read a.txt' },
          {
            role: 'assistant',
            content: '',
            reasoning: 'reading',
            tool_calls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' }],
          },
          { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: '     1\thello' },
          { role: 'assistant', content: 'It says hello.' },
        ],
      });
    };
    // list makes the host for the cwd; seed it, then load through the same host
    await client.agent.request('session/list', { cwd: work_dir });
    const made = hosts[0];
    if (!made) throw new Error('no host was made');
    seed(made);
    const listed = await client.agent.request('session/list', { cwd: work_dir });
    expect(listed.sessions).toEqual([
      {
        sessionId: seeded_id,
        cwd: work_dir,
        title: 'earlier',
        updatedAt: '2026-01-01T00:00:00.000Z',
      },
    ]);
    const response = await client.agent.request('session/load', {
      sessionId: seeded_id,
      cwd: work_dir,
      mcpServers: [],
    });
    expect(response.modes?.currentModeId).toBe('default');
    const replay = client
      .updates_of(seeded_id)
      .filter((update) => update.sessionUpdate !== 'available_commands_update');
    expect(replay).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'read a.txt' } },
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'reading' } },
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'c1',
        title: 'Read a.txt',
        kind: 'read',
        status: 'in_progress',
        locations: [{ path: join(work_dir, 'a.txt') }],
        content: [],
        rawInput: { path: 'a.txt' },
      },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: '     1\thello' } }],
      },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'It says hello.' } },
    ]);
    await expect(
      client.agent.request('session/load', { sessionId: 'missing', cwd: work_dir, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it('resumes without replaying, and close releases the session', async () => {
    start(async () => ({ stop_reason: 'final', final: 'hi' }));
    await client.initialize();
    const session_id = await new_session();
    await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'hello' }],
    });
    const before = client.updates.length;
    await client.agent.request('session/resume', { sessionId: session_id, cwd: work_dir });
    await client.wait_for_update(() => client.updates.length > before);
    expect(client.updates.slice(before).map((entry) => entry.update.sessionUpdate)).toEqual([
      'available_commands_update',
    ]);
    await client.agent.request('session/close', { sessionId: session_id });
    expect(hosts[0]?.sessions.has(session_id)).toBe(false);
    await expect(
      client.agent.request('session/prompt', {
        sessionId: session_id,
        prompt: [{ type: 'text', text: 'a' }],
      }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it('builds one host per (cwd, MCP set) and hands it the cwd and the servers', async () => {
    start();
    await client.initialize();
    const other = await mkdtemp(join(tmpdir(), 'lich-acp-other-'));
    try {
      await new_session();
      await new_session();
      await new_session(other);
      await client.agent.request('session/new', {
        cwd: work_dir,
        mcpServers: [
          {
            name: 'my tools',
            command: '/usr/bin/env',
            args: ['x'],
            env: [{ name: 'A', value: '1' }],
          },
        ],
      });
      expect(setups.map((setup) => setup.work_dir)).toEqual([work_dir, other, work_dir]);
      expect(setups[2]?.mcp_servers).toEqual({
        my_tools: { command: '/usr/bin/env', args: ['x'], env: { A: '1' }, enabled: true },
      });
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('refuses a relative cwd', async () => {
    start();
    await client.initialize();
    await expect(
      client.agent.request('session/new', { cwd: 'relative/dir', mcpServers: [] }),
    ).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('shuts every host down when the client goes away', async () => {
    start();
    await client.initialize();
    await new_session();
    client.close();
    server.close();
    await server.done;
    expect(hosts[0]?.shut_down).toBe(true);
  });
});
