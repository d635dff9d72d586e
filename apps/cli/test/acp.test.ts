/**
 * `lich acp` as an editor runs it: the built bin spawned with pipes, driven by the ACP SDK's own
 * client, with a testkit fake OpenAI server as the model. stdout must carry nothing but ACP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { type FakeServer, type ScriptStep, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, make_sandbox, openai_env, type Sandbox } from './helpers.js';

let sandbox: Sandbox;
let model: FakeServer;
let child: ChildProcess | undefined;

interface Spawned {
  agent: acp.ClientContext;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  /** Resolves at the first `agent_message_chunk`. */
  first_chunk: Promise<void>;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  close(): void;
}

function spawn_acp(
  env: Record<string, string>,
  answer: acp.PermissionOptionKind = 'allow_once',
  args: string[] = [],
): Spawned {
  const spawned = spawn(process.execPath, [BIN, 'acp', ...args], {
    cwd: sandbox.work_dir,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child = spawned;
  let raw = '';
  let errors = '';
  const tap = new PassThrough();
  spawned.stdout?.on('data', (chunk: Buffer) => {
    raw += chunk.toString('utf8');
    tap.write(chunk);
  });
  spawned.stdout?.on('end', () => tap.end());
  spawned.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    spawned.once('exit', (code) => resolve(code)),
  );
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  let chunk_seen: () => void = () => {};
  const first_chunk = new Promise<void>((resolve) => {
    chunk_seen = resolve;
  });
  const stream = acp.ndJsonStream(
    Writable.toWeb(spawned.stdin as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(tap) as ReadableStream<Uint8Array>,
  );
  const connection = acp
    .client({ name: 'lich-cli-test' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
      if (params.update.sessionUpdate === 'agent_message_chunk') chunk_seen();
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      permissions.push(params);
      const chosen = params.options.find((option) => option.kind === answer);
      return chosen
        ? { outcome: { outcome: 'selected', optionId: chosen.optionId } }
        : { outcome: { outcome: 'cancelled' } };
    })
    .connect(stream);
  return {
    agent: connection.agent,
    updates,
    permissions,
    first_chunk,
    stdout: () => raw,
    stderr: () => errors,
    exited,
    close: () => {
      connection.close();
      spawned.stdin?.end();
    },
  };
}

/** What an editor does first: `initialize`, then `session/new` in the sandbox's work dir. */
async function open_session(lich: ReturnType<typeof spawn_acp>) {
  await lich.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION });
  return lich.agent.request('session/new', { cwd: sandbox.work_dir, mcpServers: [] });
}

/** The model edits `notes.txt` (midnight → dawn) once, then answers. */
function edit_script(): ScriptStep[] {
  return [
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
  ];
}

beforeEach(async () => {
  sandbox = await make_sandbox({ 'notes.txt': 'the owl flies at midnight\n' });
});

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }
  child = undefined;
  await model?.close();
  await sandbox.cleanup();
});

describe('lich acp, spawned', () => {
  it('initialize, new session, a prompt with a tool call, end_turn; exits 0 when stdin closes', async () => {
    model = await start_openai_server({
      script: [
        {
          reasoning: 'Look first.',
          tool_calls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'notes.txt' } }],
        },
        { text: 'At midnight.' },
      ],
    });
    const lich = spawn_acp({ ...openai_env(sandbox, model.base_url), OPENAI_API_KEY: 'k-1' });
    const init = await lich.agent.request('initialize', {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    expect(init.agentInfo?.name).toBe('lich');
    const { sessionId } = await lich.agent.request('session/new', {
      cwd: sandbox.work_dir,
      mcpServers: [],
    });
    const response = await lich.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'When does the owl fly?' }],
    });
    expect(response.stopReason).toBe('end_turn');
    const kinds = lich.updates.map((entry) => entry.update.sessionUpdate);
    expect(kinds).toContain('agent_thought_chunk');
    expect(kinds).toContain('tool_call');
    expect(kinds).toContain('tool_call_update');
    const call = lich.updates.find((entry) => entry.update.sessionUpdate === 'tool_call')?.update;
    expect(call).toMatchObject({
      toolCallId: 'call_read',
      kind: 'read',
      locations: [{ path: join(sandbox.work_dir, 'notes.txt') }],
    });
    const text = lich.updates
      .flatMap((entry) =>
        entry.update.sessionUpdate === 'agent_message_chunk' && entry.update.content.type === 'text'
          ? [entry.update.content.text]
          : [],
      )
      .join('');
    expect(text).toBe('At midnight.');
    lich.close();
    expect(await lich.exited).toBe(0);
    // stdout held nothing but JSON-RPC messages, one per line
    const lines = lich
      .stdout()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  }, 30_000);

  for (const [answer, expected] of [
    ['allow_once', 'the owl flies at dawn\n'],
    ['reject_once', 'the owl flies at midnight\n'],
  ] as const) {
    it(`asks before an edit and honours ${answer}`, async () => {
      model = await start_openai_server({ script: edit_script() });
      const lich = spawn_acp(
        { ...openai_env(sandbox, model.base_url), OPENAI_API_KEY: 'k-1' },
        answer,
      );
      const { sessionId } = await open_session(lich);
      const response = await lich.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'make it dawn' }],
      });
      expect(response.stopReason).toBe('end_turn');
      expect(lich.permissions).toHaveLength(1);
      expect(lich.permissions[0]?.toolCall).toMatchObject({
        toolCallId: 'call_edit',
        kind: 'edit',
      });
      expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe(expected);
      // pending, then in progress once approved (S4), then the end
      const end = lich.updates.findLast(
        (entry) => entry.update.sessionUpdate === 'tool_call_update',
      );
      expect(end?.update).toMatchObject({
        status: answer === 'allow_once' ? 'completed' : 'failed',
      });
      lich.close();
      expect(await lich.exited).toBe(0);
    }, 30_000);
  }

  it('--yolo starts sessions in yolo: the edit runs without asking', async () => {
    model = await start_openai_server({ script: edit_script() });
    const lich = spawn_acp(
      { ...openai_env(sandbox, model.base_url), OPENAI_API_KEY: 'k-1' },
      'reject_once',
      ['--yolo'],
    );
    const created = await open_session(lich);
    expect(created.modes?.currentModeId).toBe('yolo');
    await lich.agent.request('session/prompt', {
      sessionId: created.sessionId,
      prompt: [{ type: 'text', text: 'make it dawn' }],
    });
    expect(lich.permissions).toEqual([]);
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe(
      'the owl flies at dawn\n',
    );
    lich.close();
    expect(await lich.exited).toBe(0);
  }, 30_000);

  it("a repository's permissions.mode yolo starts sessions in yolo only in a trusted folder", async () => {
    await mkdir(join(sandbox.work_dir, '.lich'), { recursive: true });
    await writeFile(
      join(sandbox.work_dir, '.lich', 'config.json'),
      JSON.stringify({ permissions: { mode: 'yolo' } }),
    );
    model = await start_openai_server({ script: [] });
    const env = { ...openai_env(sandbox, model.base_url), OPENAI_API_KEY: 'k-1' };
    const untrusted = spawn_acp(env);
    expect((await open_session(untrusted)).modes?.currentModeId).toBe('default');
    untrusted.close();
    expect(await untrusted.exited).toBe(0);
    expect(untrusted.stderr()).toMatch(/permissions\.mode yolo/);
    const trusted = spawn_acp(env, 'allow_once', ['--trust']);
    expect((await open_session(trusted)).modes?.currentModeId).toBe('yolo');
    trusted.close();
    expect(await trusted.exited).toBe(0);
  }, 30_000);

  it('answers session/new for a folder that does not exist with invalid params, naming it (S7)', async () => {
    model = await start_openai_server();
    const lich = spawn_acp(openai_env(sandbox, model.base_url));
    await lich.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION });
    const missing = join(sandbox.temp.path, 'no-such-folder');
    await expect(
      lich.agent.request('session/new', { cwd: missing, mcpServers: [] }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(`${missing} does not exist`),
    });
    // and a file is not a folder
    await expect(
      lich.agent.request('session/new', {
        cwd: join(sandbox.work_dir, 'notes.txt'),
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('is not a folder') });
    const { sessionId } = await lich.agent.request('session/new', {
      cwd: sandbox.work_dir,
      mcpServers: [],
    });
    expect(sessionId).toBeTruthy();
    lich.close();
    expect(await lich.exited).toBe(0);
  }, 30_000);

  it('answers a prompt error as a JSON-RPC error and keeps serving', async () => {
    model = await start_openai_server({
      script: [{ kind: 'status', status: 401, message: 'bad key' }, { text: 'ok now' }],
    });
    const lich = spawn_acp({ ...openai_env(sandbox, model.base_url), OPENAI_API_KEY: 'k-1' });
    const { sessionId } = await open_session(lich);
    await expect(
      lich.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'a' }] }),
    ).rejects.toMatchObject({ message: expect.stringContaining('bad key') });
    const again = await lich.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'b' }],
    });
    expect(again.stopReason).toBe('end_turn');
    lich.close();
    expect(await lich.exited).toBe(0);
  }, 30_000);

  it('a cancel mid-stream ends the prompt with cancelled', async () => {
    model = await start_openai_server({
      script: [{ text: 'a long answer that keeps coming', chunk_chars: 2, chunk_delay_ms: 200 }],
    });
    const lich = spawn_acp({ ...openai_env(sandbox, model.base_url), OPENAI_API_KEY: 'k-1' });
    const { sessionId } = await open_session(lich);
    const prompt = lich.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'talk' }],
    });
    await lich.first_chunk;
    await lich.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    lich.close();
    expect(await lich.exited).toBe(0);
  }, 30_000);

  it('refuses a bad --approval-mode with exit 2, before speaking ACP', async () => {
    const lich = spawn(process.execPath, [BIN, 'acp', '--approval-mode', 'sometimes'], {
      env: sandbox.env,
    });
    child = lich;
    let err = '';
    lich.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    const code = await new Promise((resolve) => lich.once('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('--approval-mode must be one of default, auto_edit, plan, yolo');
  });

  it('prints its help on --help, and the command is listed', async () => {
    const lich = spawn(process.execPath, [BIN, 'acp', '--help'], { env: sandbox.env });
    child = lich;
    let out = '';
    lich.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    const code = await new Promise((resolve) => lich.once('exit', resolve));
    expect(code).toBe(0);
    expect(out).toContain('Usage: lich acp');
    expect(out).toContain('agent_servers');
  });
});
