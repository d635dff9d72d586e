/**
 * Pictures in `session/prompt`: `lich acp` in process over paired byte streams, driven by the ACP
 * SDK's own client, on the real SessionHost and Agent, with a testkit fake OpenAI server as the
 * model. `initialize` advertises `image`, an image block reaches the model's request, and a block
 * that is not the picture it claims is refused `invalid_params` before anything runs.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, create_session_host, make_config } from '@lich/agent';
import {
  type FakeServer,
  make_temp_dir,
  start_openai_server,
  type TempDir,
  TINY_PNG_BASE64,
} from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AcpServer, byte_stream, type HostFactory, serve_acp } from '../src/index.js';
import { connect_client, paired_streams, type TestClient } from './acp_client.js';

let temp: TempDir;
let model: FakeServer;
let servers: AcpServer[];
let clients: TestClient[];

function factory(): HostFactory {
  return async ({ work_dir, mcp_servers, tools }) => {
    const config = make_config({
      work_dir,
      providers: [{ kind: 'openai_compat', model: 'fake-1', base_url: model.base_url }],
      mcp_servers,
    });
    const agent = new Agent({ config, env: {}, tools, on_warning: () => undefined });
    return create_session_host({ agent, coalesce_ms: 0, on_warning: () => undefined });
  };
}

function connect(): TestClient {
  const pair = paired_streams();
  const server = serve_acp(byte_stream(pair.agent.output, pair.agent.input), {
    default_work_dir: temp.path,
    host_factory: factory(),
    max_image_bytes: 1024,
  });
  servers.push(server);
  const client = connect_client(pair.client, {});
  clients.push(client);
  return client;
}

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-acp-images-' });
  servers = [];
  clients = [];
});

afterEach(async () => {
  for (const client of clients) client.close();
  for (const server of servers) server.close();
  await Promise.all(servers.map((server) => server.done));
  await model?.close();
  await temp.cleanup();
});

describe('lich acp with image blocks', () => {
  it('advertises image prompts and sends an image block to the model with the text', async () => {
    model = await start_openai_server({ script: [{ text: 'One red pixel.' }] });
    const client = connect();
    const init = await client.initialize({});
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({ image: true });
    const { sessionId } = await client.agent.request('session/new', {
      cwd: temp.path,
      mcpServers: [],
    });
    const response = await client.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'what is wrong here' },
        { type: 'image', mimeType: 'image/png', data: TINY_PNG_BASE64, uri: 'file:///w/shot.png' },
      ],
    });
    expect(response.stopReason).toBe('end_turn');
    const body = model.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    expect(body.messages.find((message) => message.role === 'user')?.content).toEqual([
      { type: 'text', text: 'what is wrong here' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
    ]);
  });

  it('a load on a new connection replays the picture, its bytes read back from the blob store', async () => {
    model = await start_openai_server({ script: [{ text: 'One red pixel.' }] });
    const first = connect();
    await first.initialize({});
    const { sessionId } = await first.agent.request('session/new', {
      cwd: temp.path,
      mcpServers: [],
    });
    await first.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'what is wrong here' },
        { type: 'image', mimeType: 'image/png', data: TINY_PNG_BASE64 },
      ],
    });
    first.close();
    servers[0]?.close();
    await servers[0]?.done;
    // the session file holds the picture by hash, never inline
    const files = await readdir(join(temp.path, '.lich', 'sessions'), { recursive: true });
    const transcript = files.find((file) => file.endsWith('.jsonl'));
    const text = await readFile(join(temp.path, '.lich', 'sessions', transcript ?? ''), 'utf8');
    expect(text).not.toContain(TINY_PNG_BASE64);

    const second = connect();
    await second.initialize({});
    await second.agent.request('session/load', { sessionId, cwd: temp.path, mcpServers: [] });
    const replay = second
      .updates_of(sessionId)
      .filter((update) => update.sessionUpdate === 'user_message_chunk');
    expect(replay.map((update) => update.content)).toEqual([
      { type: 'text', text: 'what is wrong here' },
      { type: 'image', mimeType: 'image/png', data: TINY_PNG_BASE64 },
    ]);
  });

  it('refuses an image block whose bytes are not its type, or over the cap, with invalid_params', async () => {
    model = await start_openai_server({ script: [] });
    const client = connect();
    await client.initialize({});
    const { sessionId } = await client.agent.request('session/new', {
      cwd: temp.path,
      mcpServers: [],
    });
    const refused = (data: string, mime_type: string) =>
      client.agent
        .request('session/prompt', {
          sessionId,
          prompt: [
            { type: 'text', text: 'look' },
            { type: 'image', mimeType: mime_type, data },
          ],
        })
        .then(
          () => undefined,
          (error: unknown) => error as { code: number; message: string; data?: unknown },
        );
    const wrong_type = await refused(TINY_PNG_BASE64, 'image/gif');
    expect(wrong_type?.code).toBe(-32602);
    expect(wrong_type?.message).toContain(
      'prompt[1] (image): the picture was sent as image/gif but its bytes are image/png',
    );
    const too_big = await refused('A'.repeat(4000), 'image/png');
    expect(too_big?.code).toBe(-32602);
    expect(too_big?.message).toContain('over the limit of 1 KB');
    expect(model.requests).toHaveLength(0);
  });
});
