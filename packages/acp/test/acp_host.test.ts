/**
 * `lich acp` in process over paired byte streams, driven by the ACP SDK's own client, on the real
 * SessionHost and Agent, with a testkit fake OpenAI server as the model and the reference MCP
 * server `server-everything` as a real MCP peer.
 */

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { McpServer } from '@agentclientprotocol/sdk';
import { Agent, create_session_host, make_config } from '@lich/agent';
import { type FakeServer, make_temp_dir, start_openai_server, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AcpServer, byte_stream, type HostFactory, serve_acp } from '../src/index.js';
import {
  type ClientBehaviour,
  choose,
  connect_client,
  paired_streams,
  type TestClient,
} from './acp_client.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

let temp: TempDir;
let model: FakeServer;
let servers: AcpServer[];
let clients: TestClient[];
let logs: string[];

const ENV = { LICH_FAKE_KEY: 'k-1' };

function factory(): HostFactory {
  return async ({ work_dir, mcp_servers, tools }) => {
    const config = make_config({
      work_dir,
      providers: [
        {
          kind: 'openai_compat',
          model: 'fake-1',
          base_url: model.base_url,
          api_key_env: 'LICH_FAKE_KEY',
        },
      ],
      mcp_servers,
    });
    const agent = new Agent({ config, env: ENV, tools, on_warning: (text) => logs.push(text) });
    return create_session_host({ agent, coalesce_ms: 0, on_warning: (text) => logs.push(text) });
  };
}

/** A `lich acp` served in process, and the SDK's client connected to it. */
function connect(behaviour: ClientBehaviour = {}, client_terminal = false): TestClient {
  const pair = paired_streams();
  const server = serve_acp(byte_stream(pair.agent.output, pair.agent.input), {
    default_work_dir: temp.path,
    client_terminal,
    host_factory: factory(),
    on_log: (text) => logs.push(text),
  });
  servers.push(server);
  const client = connect_client(pair.client, behaviour);
  clients.push(client);
  return client;
}

async function new_session(client: TestClient, mcp_servers: McpServer[] = []) {
  const response = await client.agent.request('session/new', {
    cwd: temp.path,
    mcpServers: mcp_servers,
  });
  return response.sessionId;
}

function text_of(
  client: TestClient,
  session_id: string,
  kind: 'agent_message_chunk' | 'agent_thought_chunk',
): string {
  return client
    .updates_of(session_id)
    .flatMap((update) =>
      update.sessionUpdate === kind && update.content.type === 'text' ? [update.content.text] : [],
    )
    .join('');
}

beforeEach(async () => {
  temp = await make_temp_dir({
    prefix: 'lich-acp-host-',
    files: { 'notes.txt': 'the owl flies at midnight\n' },
  });
  servers = [];
  clients = [];
  logs = [];
});

afterEach(async () => {
  for (const client of clients) client.close();
  for (const server of servers) server.close();
  await Promise.all(servers.map((server) => server.done));
  await model?.close();
  await temp.cleanup();
});

describe('lich acp on the real host, in process', () => {
  it('initialize, new session, a prompt that streams thought and text, calls a tool, ends end_turn', async () => {
    model = await start_openai_server({
      script: [
        {
          reasoning: 'I should read the notes.',
          text: 'Reading them.',
          tool_calls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'notes.txt' } }],
        },
        { text: 'The owl flies at midnight.' },
      ],
    });
    const client = connect();
    const init = await client.initialize({});
    expect(init.agentCapabilities?.loadSession).toBe(true);
    const session_id = await new_session(client);
    const response = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'What do the notes say?' }],
    });
    expect(response.stopReason).toBe('end_turn');
    expect(text_of(client, session_id, 'agent_thought_chunk')).toBe('I should read the notes.');
    expect(text_of(client, session_id, 'agent_message_chunk')).toBe(
      'Reading them.The owl flies at midnight.',
    );
    const updates = client.updates_of(session_id);
    const call = updates.find((update) => update.sessionUpdate === 'tool_call');
    expect(call).toMatchObject({
      toolCallId: 'call_read',
      title: 'Read notes.txt',
      kind: 'read',
      locations: [{ path: join(temp.path, 'notes.txt') }],
    });
    // announced pending, then in progress once it runs, then completed (S4)
    const statuses = updates
      .filter((update) => 'toolCallId' in update && update.toolCallId === 'call_read')
      .map((update) => ('status' in update ? update.status : undefined));
    expect(statuses).toEqual(['pending', 'in_progress', 'completed']);
    const done = updates.find(
      (update) => update.sessionUpdate === 'tool_call_update' && update.status === 'completed',
    );
    expect(done).toMatchObject({ toolCallId: 'call_read', status: 'completed' });
    expect(JSON.stringify(done)).toContain('the owl flies at midnight');
    expect(updates.map((update) => update.sessionUpdate)).toContain('usage_update');
    expect(updates.map((update) => update.sessionUpdate)).toContain('available_commands_update');
  });

  it("a task call's content follows what its subagent does, then ends with the subagent's answer", async () => {
    model = await start_openai_server({
      script: [
        {
          tool_calls: [
            {
              id: 'call_task',
              name: 'task',
              arguments: { description: 'read the notes', prompt: 'Read notes.txt and report.' },
            },
          ],
        },
        // the subagent: reads, then answers
        { tool_calls: [{ id: 'call_child', name: 'read_file', arguments: { path: 'notes.txt' } }] },
        { text: 'The notes speak of an owl.' },
        { text: 'An owl, at midnight.' },
      ],
    });
    const client = connect();
    await client.initialize({});
    const session_id = await new_session(client);
    const response = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'Delegate it.' }],
    });
    expect(response.stopReason).toBe('end_turn');
    const task_updates = client
      .updates_of(session_id)
      .filter((update) => 'toolCallId' in update && update.toolCallId === 'call_task');
    const shown = task_updates.flatMap((update) =>
      update.sessionUpdate === 'tool_call_update' && update.status === undefined
        ? (update.content ?? []).flatMap((item) =>
            item.type === 'content' && item.content.type === 'text' ? [item.content.text] : [],
          )
        : [],
    );
    expect(shown).toEqual([
      'thinking · 0 tool calls so far',
      'Read notes.txt · 1 tool call so far',
      'thinking · 1 tool call so far',
    ]);
    expect(task_updates.at(-1)).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(task_updates.at(-1))).toContain('The notes speak of an owl.');
    // the subagent's own calls are not the parent's: the editor sees only the task call
    expect(
      client.updates_of(session_id).some((u) => 'toolCallId' in u && u.toolCallId === 'call_child'),
    ).toBe(false);
  });

  it('todo_write sends the task list as ACP plan updates; a refused list sends none', async () => {
    const todos = [
      { content: 'read the notes', status: 'completed' },
      { content: 'answer', status: 'in_progress' },
    ];
    model = await start_openai_server({
      script: [
        { tool_calls: [{ id: 'call_todo', name: 'todo_write', arguments: { todos } }] },
        {
          tool_calls: [
            {
              id: 'call_bad',
              name: 'todo_write',
              arguments: {
                todos: [
                  { content: 'a', status: 'in_progress' },
                  { content: 'b', status: 'in_progress' },
                ],
              },
            },
          ],
        },
        { text: 'Planned.' },
      ],
    });
    const client = connect();
    await client.initialize({});
    const session_id = await new_session(client);
    const response = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'Plan it.' }],
    });
    expect(response.stopReason).toBe('end_turn');
    const plans = client.updates_of(session_id).filter((update) => update.sessionUpdate === 'plan');
    expect(plans).toEqual([
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'read the notes', status: 'completed', priority: 'medium' },
          { content: 'answer', status: 'in_progress', priority: 'medium' },
        ],
      },
    ]);
  });

  it('plan mode (an ACP session mode): a write is refused until the plan is approved', async () => {
    const write = {
      id: 'call_write',
      name: 'write_file',
      arguments: { path: 'notes.txt', content: 'after the plan' },
    };
    model = await start_openai_server({
      script: [
        { tool_calls: [write] },
        {
          tool_calls: [
            {
              id: 'call_plan',
              name: 'exit_plan_mode',
              arguments: { plan: '1. rewrite notes.txt' },
            },
          ],
        },
        { tool_calls: [{ ...write, id: 'call_write_2' }] },
        { text: 'Done.' },
      ],
    });
    const notes_at_plan: string[] = [];
    const client = connect({
      permission: async (request) => {
        if (request.toolCall.toolCallId === 'call_plan') {
          notes_at_plan.push(await readFile(join(temp.path, 'notes.txt'), 'utf8'));
          // approve and let edits run
          return { outcome: { outcome: 'selected', optionId: 'allow_always' } };
        }
        return { outcome: { outcome: 'cancelled' } };
      },
    });
    const init = await client.initialize({});
    expect(init).toBeDefined();
    const created = await client.agent.request('session/new', { cwd: temp.path, mcpServers: [] });
    expect(created.modes?.availableModes.map((mode) => mode.id)).toContain('plan');
    const session_id = created.sessionId;
    await client.agent.request('session/set_mode', { sessionId: session_id, modeId: 'plan' });
    const response = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'Rewrite the notes.' }],
    });
    expect(response.stopReason).toBe('end_turn');
    expect(notes_at_plan).toEqual(['the owl flies at midnight\n']);
    const updates = client.updates_of(session_id);
    const refused = updates.find(
      (update) =>
        update.sessionUpdate === 'tool_call_update' &&
        update.toolCallId === 'call_write' &&
        update.status === 'failed',
    );
    expect(JSON.stringify(refused)).toContain('plan mode');
    expect(
      updates.some(
        (update) =>
          update.sessionUpdate === 'current_mode_update' && update.currentModeId === 'auto_edit',
      ),
    ).toBe(true);
    expect(await readFile(join(temp.path, 'notes.txt'), 'utf8')).toBe('after the plan');
    // only the plan was asked: the approved mode let the edit run
    expect(client.permission_requests.map((request) => request.toolCall.toolCallId)).toEqual([
      'call_plan',
    ]);
  });

  it('/rewind lists the prompts and rewinds the files an edit changed', async () => {
    model = await start_openai_server({
      script: [
        {
          tool_calls: [
            {
              id: 'call_edit',
              name: 'edit_file',
              arguments: { path: 'notes.txt', old_text: 'midnight', new_text: 'dawn' },
            },
          ],
        },
        { text: 'Done.' },
      ],
    });
    const client = connect({ permission: choose('allow_once') });
    await client.initialize({});
    const session_id = await new_session(client);
    await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'make it dawn' }],
    });
    expect(await readFile(join(temp.path, 'notes.txt'), 'utf8')).toBe('the owl flies at dawn\n');
    const commands = client
      .updates_of(session_id)
      .find((update) => update.sessionUpdate === 'available_commands_update');
    expect(JSON.stringify(commands)).toContain('"rewind"');
    const said = () => text_of(client, session_id, 'agent_message_chunk');
    await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: '/rewind' }],
    });
    expect(said()).toMatch(/↺\s+1 .*make it dawn .*1 file \+1 −1/);
    const listed = said().length;
    const response = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: '/rewind 1 --files' }],
    });
    expect(response.stopReason).toBe('end_turn');
    expect(said().slice(listed)).toContain('Rewound to before prompt 1.');
    expect(await readFile(join(temp.path, 'notes.txt'), 'utf8')).toBe(
      'the owl flies at midnight\n',
    );
  });

  it('a cancel mid-stream ends the prompt with cancelled', async () => {
    model = await start_openai_server({
      script: [{ text: 'a long answer that keeps coming', chunk_chars: 2, chunk_delay_ms: 200 }],
    });
    const client = connect();
    await client.initialize({});
    const session_id = await new_session(client);
    const prompt = client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'talk' }],
    });
    await client.wait_for_update((update) => update.sessionUpdate === 'agent_message_chunk');
    await client.agent.notify('session/cancel', { sessionId: session_id });
    expect((await prompt).stopReason).toBe('cancelled');
  });

  it('a load on a new connection replays the recorded history', async () => {
    model = await start_openai_server({
      script: [
        { tool_calls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'notes.txt' } }] },
        { text: 'Midnight.' },
      ],
    });
    const first = connect();
    await first.initialize({});
    const session_id = await new_session(first);
    await first.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'When does the owl fly?' }],
    });
    first.close();
    servers[0]?.close();
    await servers[0]?.done;

    const second = connect();
    await second.initialize({});
    const listed = await second.agent.request('session/list', { cwd: temp.path });
    expect(listed.sessions.map((entry) => entry.sessionId)).toContain(session_id);
    await second.agent.request('session/load', {
      sessionId: session_id,
      cwd: temp.path,
      mcpServers: [],
    });
    const replay = second
      .updates_of(session_id)
      .filter((update) => update.sessionUpdate !== 'available_commands_update');
    expect(replay.map((update) => update.sessionUpdate)).toEqual([
      'user_message_chunk',
      'tool_call',
      'tool_call_update',
      'agent_message_chunk',
    ]);
    expect(replay[0]).toMatchObject({ content: { text: 'When does the owl fly?' } });
    expect(replay[1]).toMatchObject({
      toolCallId: 'call_read',
      kind: 'read',
      title: 'Read notes.txt',
    });
    expect(replay[3]).toMatchObject({ content: { text: 'Midnight.' } });
  });

  it('uses an MCP server passed in session/new (the reference server-everything)', async () => {
    model = await start_openai_server({
      script: [
        {
          tool_calls: [
            {
              id: 'call_echo',
              name: 'mcp_everything_echo',
              arguments: { message: 'hello from acp' },
            },
          ],
        },
        { text: 'It echoed.' },
      ],
    });
    const client = connect();
    await client.initialize({});
    const session_id = await new_session(client, [
      { name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], env: [] },
    ]);
    const response = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'echo something' }],
    });
    expect(response.stopReason).toBe('end_turn');
    const request = model.requests[0]?.body as { tools?: { function: { name: string } }[] };
    expect(request.tools?.map((tool) => tool.function.name)).toContain('mcp_everything_echo');
    const done = client
      .updates_of(session_id)
      .find(
        (update) =>
          update.sessionUpdate === 'tool_call_update' &&
          update.toolCallId === 'call_echo' &&
          update.status === 'completed',
      );
    expect(done).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(done)).toContain('Echo: hello from acp');
  }, 30_000);

  it('reads and writes files through the client when it offers fs', async () => {
    const notes = join(temp.path, 'notes.txt');
    const draft = join(temp.path, 'draft.md');
    model = await start_openai_server({
      script: [
        {
          tool_calls: [
            { id: 'call_read', name: 'read_file', arguments: { path: 'notes.txt' } },
            {
              id: 'call_write',
              name: 'write_file',
              arguments: { path: 'draft.md', content: '# Draft\n' },
            },
          ],
        },
        { text: 'Done.' },
      ],
    });
    // the editor's buffer differs from the disk: unsaved changes
    const files = new Map([[notes, 'the owl sleeps at noon (unsaved)\n']]);
    const client = connect({ files });
    await client.initialize();
    const session_id = await new_session(client);
    const response = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'read and draft' }],
    });
    expect(response.stopReason).toBe('end_turn');
    expect(client.fs_calls).toEqual([
      { method: 'read', path: notes },
      { method: 'write', path: draft, content: '# Draft\n' },
    ]);
    expect(files.get(draft)).toBe('# Draft\n');
    // each call is announced (pending) before the request it makes of the editor (S4)
    const pairs: [string, string][] = [
      ['call_read', `fs/read ${notes}`],
      ['call_write', `fs/write ${draft}`],
    ];
    for (const [id, request] of pairs) {
      const announced = client.wire.indexOf(`tool_call ${id} pending`);
      expect(announced, client.wire.join('\n')).toBeGreaterThanOrEqual(0);
      expect(client.wire.indexOf(request)).toBeGreaterThan(announced);
    }
    // the disk is untouched: the write went to the editor
    await expect(readFile(draft, 'utf8')).rejects.toThrow();
    const second_request = JSON.stringify(model.requests[1]?.body);
    expect(second_request).toContain('the owl sleeps at noon (unsaved)');
    const write_call = client
      .updates_of(session_id)
      .find((update) => update.sessionUpdate === 'tool_call' && update.toolCallId === 'call_write');
    expect(write_call).toMatchObject({
      kind: 'edit',
      content: [{ type: 'diff', path: draft, oldText: null, newText: '# Draft\n' }],
    });
  });

  it('runs terminal in the client terminal with --client-terminal, and shows it on the tool call', async () => {
    model = await start_openai_server({
      script: [
        {
          tool_calls: [
            {
              id: 'call_sh',
              name: 'terminal',
              arguments: { command: 'echo from-the-editor; pwd' },
            },
          ],
        },
        { text: 'Ran it.' },
      ],
    });
    const client = connect({ terminal: true }, true);
    await client.initialize();
    const session_id = await new_session(client);
    const response = await client.agent.request('session/prompt', {
      sessionId: session_id,
      prompt: [{ type: 'text', text: 'run it' }],
    });
    expect(response.stopReason).toBe('end_turn');
    expect(client.terminal_calls[0]).toBe('create bash -c exec 2>&1; echo from-the-editor; pwd');
    expect(client.wire.indexOf('terminal/create')).toBeGreaterThan(
      client.wire.indexOf('tool_call call_sh pending'),
    );
    expect(client.terminal_calls).toContain('release');
    const updates = client.updates_of(session_id);
    expect(updates).toContainEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_sh',
      content: [{ type: 'terminal', terminalId: 'term-1' }],
    });
    const last = updates.filter((update) => update.sessionUpdate === 'tool_call_update').at(-1);
    expect(last).toMatchObject({ toolCallId: 'call_sh', status: 'completed' });
    expect(last).not.toHaveProperty('content');
    const tool_result = JSON.stringify(model.requests[1]?.body);
    expect(tool_result).toContain('from-the-editor');
    expect(tool_result).toContain('[exit code 0]');
  });

  describe('permissions', () => {
    function edit_turns() {
      return [
        {
          text: 'Editing.',
          tool_calls: [
            {
              id: 'call_edit',
              name: 'edit_file',
              arguments: { path: 'notes.txt', old_text: 'midnight', new_text: 'dawn' },
            },
          ],
        },
        { text: 'Finished.' },
      ];
    }

    async function run_edit(behaviour: ClientBehaviour) {
      model = await start_openai_server({ script: edit_turns() });
      const client = connect(behaviour);
      await client.initialize({});
      const session_id = await new_session(client);
      const response = await client.agent.request('session/prompt', {
        sessionId: session_id,
        prompt: [{ type: 'text', text: 'make it dawn' }],
      });
      const on_disk = await readFile(join(temp.path, 'notes.txt'), 'utf8');
      return { client, session_id, response, on_disk };
    }

    it('asks before an edit; allow_once lets it run, with the diff shown', async () => {
      const { client, session_id, response, on_disk } = await run_edit({
        permission: choose('allow_once'),
      });
      expect(response.stopReason).toBe('end_turn');
      expect(on_disk).toBe('the owl flies at dawn\n');
      const [request] = client.permission_requests;
      const path = join(temp.path, 'notes.txt');
      expect(request?.toolCall).toMatchObject({
        toolCallId: 'call_edit',
        kind: 'edit',
        status: 'pending',
        locations: [{ path }],
        // the whole file before and after, as the host previewed the edit (C3)
        content: [
          {
            type: 'diff',
            path,
            oldText: 'the owl flies at midnight\n',
            newText: 'the owl flies at dawn\n',
          },
        ],
      });
      expect(request?.options.map((option) => option.kind)).toEqual([
        'allow_once',
        'allow_always',
        'reject_once',
        'reject_always',
      ]);
      const end = client
        .updates_of(session_id)
        .find(
          (update) =>
            update.sessionUpdate === 'tool_call_update' && update.status !== 'in_progress',
        );
      expect(end).toMatchObject({ toolCallId: 'call_edit', status: 'completed' });
    });

    it('reject_once blocks the edit; the call fails and the turn still ends end_turn', async () => {
      const { client, session_id, response, on_disk } = await run_edit({
        permission: choose('reject_once'),
      });
      expect(response.stopReason).toBe('end_turn');
      expect(on_disk).toBe('the owl flies at midnight\n');
      expect(client.permission_requests).toHaveLength(1);
      const end = client
        .updates_of(session_id)
        .find((update) => update.sessionUpdate === 'tool_call_update');
      expect(end).toMatchObject({ toolCallId: 'call_edit', status: 'failed' });
    });

    it('a cancelled permission request is a rejection', async () => {
      const { response, on_disk } = await run_edit({
        permission: async () => ({ outcome: { outcome: 'cancelled' } }),
      });
      expect(response.stopReason).toBe('end_turn');
      expect(on_disk).toBe('the owl flies at midnight\n');
    });

    it('allow_always is remembered for the session: the next edit is not asked', async () => {
      model = await start_openai_server({
        script: [
          ...edit_turns(),
          {
            tool_calls: [
              {
                id: 'call_edit_2',
                name: 'edit_file',
                arguments: { path: 'notes.txt', old_text: 'dawn', new_text: 'noon' },
              },
            ],
          },
          { text: 'Again.' },
        ],
      });
      const client = connect({ permission: choose('allow_always') });
      await client.initialize({});
      const session_id = await new_session(client);
      for (const text of ['make it dawn', 'now noon']) {
        const response = await client.agent.request('session/prompt', {
          sessionId: session_id,
          prompt: [{ type: 'text', text }],
        });
        expect(response.stopReason).toBe('end_turn');
      }
      expect(client.permission_requests).toHaveLength(1);
      expect(await readFile(join(temp.path, 'notes.txt'), 'utf8')).toBe('the owl flies at noon\n');
    });

    it('a cancel while the person decides ends the prompt cancelled and runs nothing', async () => {
      model = await start_openai_server({ script: edit_turns() });
      let asked: () => void = () => {};
      const was_asked = new Promise<void>((resolve) => {
        asked = resolve;
      });
      const client = connect({
        permission: () =>
          new Promise(() => {
            asked();
          }),
      });
      await client.initialize({});
      const session_id = await new_session(client);
      const prompt = client.agent.request('session/prompt', {
        sessionId: session_id,
        prompt: [{ type: 'text', text: 'make it dawn' }],
      });
      await was_asked;
      await client.agent.notify('session/cancel', { sessionId: session_id });
      expect((await prompt).stopReason).toBe('cancelled');
      expect(await readFile(join(temp.path, 'notes.txt'), 'utf8')).toBe(
        'the owl flies at midnight\n',
      );
    });
  });
});
