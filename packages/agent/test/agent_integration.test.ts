import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type FakeServer,
  fake_chat,
  make_temp_dir,
  start_anthropic_server,
  start_ollama_server,
  start_openai_server,
  type TempDir,
  unused_port_url,
} from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent.js';
import { load_config, make_config } from '../src/config/config_load.js';
import type { ConfigFile } from '../src/config/config_schema.js';

let temp: TempDir;
const servers: FakeServer[] = [];

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-agent-it-', files: { 'a.txt': 'alpha\n' } });
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await temp.cleanup();
});

type Body = { messages?: unknown[]; system?: unknown; model?: string };

describe('Agent with each provider kind against the fake servers', () => {
  const kinds = [
    ['openai_compat', start_openai_server, 'OPENAI_API_KEY'],
    ['anthropic', start_anthropic_server, 'ANTHROPIC_API_KEY'],
    ['ollama', start_ollama_server, undefined],
  ] as const;
  for (const [kind, start, key_env] of kinds) {
    it(`${kind}: a tool call, then the answer, with usage summed`, async () => {
      const server = await start({
        script: [
          {
            tool_calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'a.txt' } }],
            usage: { input_tokens: 20, output_tokens: 4 },
          },
          { text: 'It says alpha.', usage: { input_tokens: 30, output_tokens: 3 } },
        ],
      });
      servers.push(server);
      const env = {
        HOME: temp.path,
        XDG_CONFIG_HOME: temp.path,
        ...(key_env ? { [key_env]: 'k-1' } : {}),
      };
      const loaded = await load_config({
        work_dir: temp.path,
        env: { ...env, LICH_PROVIDER: kind, LICH_MODEL: 'fake-1', LICH_BASE_URL: server.base_url },
      });
      if (!loaded.ok) throw loaded.error;
      const agent = new Agent({ config: loaded.config, env });
      const result = await agent.run({ input: 'what does a.txt say?', session: false });
      expect(result.outcome.final).toBe('It says alpha.');
      expect(result.usage_total).toMatchObject({ input_tokens: 50, output_tokens: 7 });
      expect(server.requests).toHaveLength(2);
      expect((server.requests[0]?.body as Body | undefined)?.model).toBe('fake-1');
      const second = JSON.stringify(server.requests[1]?.body);
      expect(second).toContain('alpha');
      if (key_env === 'ANTHROPIC_API_KEY')
        expect(server.requests[0]?.headers['x-api-key']).toBe('k-1');
      if (key_env === 'OPENAI_API_KEY') {
        expect(server.requests[0]?.headers.authorization).toBe('Bearer k-1');
      }
    });
  }

  it('fails over to the next provider and reports it', async () => {
    const live = await start_anthropic_server({ script: [{ text: 'from anthropic' }] });
    servers.push(live);
    const dead = await unused_port_url();
    const events: string[] = [];
    const agent = new Agent({
      config: make_config({
        work_dir: temp.path,
        providers: [
          { kind: 'openai_compat', model: 'gone', base_url: `${dead}/v1` },
          { kind: 'anthropic', model: 'claude-fake', base_url: live.base_url },
        ],
      }),
      env: {},
      on_provider_event: (event) => events.push(event.type),
    });
    const result = await agent.run({ input: 'hi', session: false });
    expect(result.outcome.final).toBe('from anthropic');
    expect(events.at(-1)).toBe('provider_failover');
  });
});

describe('plugins', () => {
  it('loads the built-in gatekeeper by name: git_commit is offered', async () => {
    const chat = fake_chat(['ok']);
    const agent = new Agent({
      config: make_config({ work_dir: temp.path, plugins: ['gatekeeper'] }),
      chat,
    });
    await agent.run({ input: 'x', session: false });
    expect(chat.calls[0]?.tools.map((tool) => tool.name)).toContain('git_commit');
  });

  it('loads a plugin module by path: its tool runs and its hooks and listeners see the run', async () => {
    await writeFile(
      join(temp.path, 'shout.mjs'),
      `import { z } from 'zod';
export default {
  name: 'shout',
  register(api) {
    api.register_tool({
      name: 'shout',
      description: 'Upper-cases text',
      parameters: z.object({ text: z.string() }),
      async execute(args) { return args.text.toUpperCase(); },
    });
    api.before_tool_call((name) => (name === 'terminal' ? { block: 'no shell here' } : undefined));
    api.on_event((event) => { if (event.type === 'run_end') globalThis.__shout_runs = (globalThis.__shout_runs ?? 0) + 1; });
  },
};
`,
    );
    // the plugin imports zod: give it the workspace's copy
    await writeFile(
      join(temp.path, 'package.json'),
      JSON.stringify({ name: 'plugin-host', type: 'module' }),
    );
    const { symlink } = await import('node:fs/promises');
    const zod_dir = join(import.meta.dirname, '..', 'node_modules', 'zod');
    await import('node:fs/promises').then(({ mkdir }) =>
      mkdir(join(temp.path, 'node_modules'), { recursive: true }),
    );
    await symlink(zod_dir, join(temp.path, 'node_modules', 'zod'));
    const chat = fake_chat([
      {
        tool_calls: [
          { name: 'shout', arguments: { text: 'hey' } },
          { name: 'terminal', arguments: { command: 'echo hi' } },
        ],
      },
      'done',
    ]);
    const agent = new Agent({
      config: make_config({ work_dir: temp.path, plugins: ['./shout.mjs'] }),
      chat,
    });
    const result = await agent.run({ input: 'shout hey', session: false });
    const tools = result.transcript.filter((message) => message.role === 'tool');
    expect(tools[0]?.content).toBe('HEY');
    expect(tools[1]?.content).toContain('no shell here');
    expect((globalThis as { __shout_runs?: number }).__shout_runs).toBe(1);
  });

  it('rejects the run with a ConfigError naming a plugin that cannot be loaded', async () => {
    const agent = new Agent({
      config: make_config({ work_dir: temp.path, plugins: ['./missing-plugin.mjs'] }),
      chat: fake_chat(['never']),
    });
    await expect(agent.run({ input: 'x', session: false })).rejects.toThrow(
      /plugin '\.\/missing-plugin\.mjs' could not be loaded/,
    );
  });
});

describe('MCP', () => {
  it('warns about a server that fails to start and runs on', async () => {
    const warnings: string[] = [];
    const agent = new Agent({
      config: make_config({
        work_dir: temp.path,
        mcp_servers: { broken: { command: 'lich-no-such-mcp-server-binary' } },
      }),
      chat: fake_chat(['still answered']),
      on_warning: (text) => warnings.push(text),
    });
    const result = await agent.run({ input: 'x', session: false });
    await agent.close();
    expect(result.outcome.final).toBe('still answered');
    expect(warnings.join('\n')).toMatch(/broken/);
  });

  it('never connects when tools_enabled is empty, nor to a disabled server', async () => {
    const warnings: string[] = [];
    const configs: ConfigFile[] = [
      { tools_enabled: [], mcp_servers: { broken: { command: 'lich-no-such-mcp-server-binary' } } },
      { mcp_servers: { off: { command: 'lich-no-such-mcp-server-binary', enabled: false } } },
    ];
    for (const config of configs) {
      const agent = new Agent({
        config: make_config({ work_dir: temp.path, ...config }),
        chat: fake_chat(['fine']),
        on_warning: (text) => warnings.push(text),
      });
      await agent.run({ input: 'x', session: false });
      await agent.close();
    }
    expect(warnings).toEqual([]);
  });
});

describe('plugins by package name', () => {
  it("finds a package installed in the work dir's node_modules", async () => {
    const folder = join(temp.path, 'node_modules', 'lich-plugin-hello');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, 'package.json'),
      JSON.stringify({ name: 'lich-plugin-hello', type: 'module', main: 'index.js' }),
    );
    await writeFile(
      join(folder, 'index.js'),
      `export default () => ({ name: 'hello', register(api) { api.on_event(() => {}); } });\n`,
    );
    const agent = new Agent({
      config: make_config({ work_dir: temp.path, plugins: ['lich-plugin-hello'] }),
      chat: fake_chat(['hi']),
    });
    const result = await agent.run({ input: 'x', session: false });
    expect(result.outcome.final).toBe('hi');
  });
});
