/**
 * A team's custom commands through `lich acp`: listed in `available_commands_update`, and a
 * prompt that names one sends the command's filled-in template to the model.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Agent, create_session_host, make_config } from '@lich/agent';
import { type FakeServer, make_temp_dir, start_openai_server, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AcpServer, byte_stream, serve_acp } from '../src/index.js';
import { connect_client, paired_streams, type TestClient } from './acp_client.js';

let temp: TempDir;
let model: FakeServer;
let server: AcpServer | undefined;
let client: TestClient | undefined;

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(temp.path, path)), { recursive: true });
  await writeFile(join(temp.path, path), text);
}

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-acp-commands-' });
  model = await start_openai_server({ script: [{ text: 'Created.' }] });
});

afterEach(async () => {
  client?.close();
  server?.close();
  await server?.done;
  await model.close();
  await temp.cleanup();
});

describe('custom commands over ACP', () => {
  it('lists them in available_commands_update and runs one as the prompt', async () => {
    await put(
      '.claude/commands/review.md',
      '---\ndescription: Review a file\n---\nReview $ARGUMENTS.\n',
    );
    await put(
      '.gemini/commands/frontend/component.toml',
      'description = "Scaffold a component"\nprompt = "Create a component named {{args}}."\n',
    );
    const pair = paired_streams();
    server = serve_acp(byte_stream(pair.agent.output, pair.agent.input), {
      default_work_dir: temp.path,
      client_terminal: false,
      host_factory: async ({ work_dir, tools }) => {
        const config = make_config({
          work_dir,
          providers: [
            { kind: 'openai_compat', model: 'fake-1', base_url: model.base_url, api_key_env: 'K' },
          ],
        });
        const agent = new Agent({ config, env: { K: 'k' }, tools, on_warning: () => undefined });
        return create_session_host({ agent, coalesce_ms: 0, on_warning: () => undefined });
      },
      on_log: () => undefined,
    });
    client = connect_client(pair.client, {});
    await client.initialize({});
    const { sessionId } = await client.agent.request('session/new', {
      cwd: temp.path,
      mcpServers: [],
    });
    const response = await client.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: '/frontend:component UserCard' }],
    });
    expect(response.stopReason).toBe('end_turn');
    const listed = client
      .updates_of(sessionId)
      .find((update) => update.sessionUpdate === 'available_commands_update');
    const names = JSON.stringify(listed);
    expect(names).toContain('"name":"review"');
    expect(names).toContain('"name":"frontend:component"');
    const body = model.requests[0]?.body as { messages: { role: string; content: string }[] };
    expect(body.messages.at(-1)?.content).toBe('Create a component named UserCard.');
  });
});
