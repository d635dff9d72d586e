import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { make_sandbox, openai_env, request_body, run_lich, type Sandbox } from './helpers.js';

const PLUGIN = `export default {
  name: 'weather',
  register(api) {
    api.register_tool({
      name: 'forecast',
      description: 'The forecast for a city.',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
        required: ['city'],
      },
      async execute(args) {
        return 'sunny in ' + args.city + ' for ' + (args.days ?? 1) + ' day(s)';
      },
    });
    api.register_tool({
      name: 'deploy',
      description: 'Deploys.',
      parameters: { type: 'object', properties: {} },
      async execute() {
        return { ok: false, output: '', error: 'build failed:\\n  src/a.ts:1 missing semicolon\\n  src/b.ts:9 unknown name' };
      },
    });
  },
};
`;

let sandbox: Sandbox;
let server: FakeServer;

beforeEach(async () => {
  sandbox = await make_sandbox({
    'weather.mjs': PLUGIN,
    // the plugin is in the project's file: the runs below trust the folder
    '.lich/config.json': JSON.stringify({ plugins: ['./weather.mjs'] }),
  });
  server = await start_openai_server();
});

afterEach(async () => {
  await server.close();
  await sandbox.cleanup();
});

describe('a plugin tool with plain JSON Schema parameters', () => {
  it('is shown to the model as written and its arguments are checked against it', async () => {
    server.enqueue(
      { tool_calls: [{ name: 'forecast', arguments: { city: 'Oslo', days: 2 } }] },
      { tool_calls: [{ name: 'forecast', arguments: { days: 'many' } }] },
      { text: 'done' },
    );
    const result = await run_lich(['--trust', '--no-session', 'weather?'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.stderr).toMatch(/✓ forecast Oslo/);
    expect(result.code).toBe(0);
    type Body = {
      tools: { function: { name: string; parameters: unknown } }[];
      messages: { role: string; content: string }[];
    };
    const tool = request_body<Body>(server, 0).tools.find(
      (entry) => entry.function.name === 'forecast',
    );
    expect(tool?.function.parameters).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
      required: ['city'],
    });
    expect(request_body<Body>(server, 1).messages.at(-1)?.content).toBe(
      'sunny in Oslo for 2 day(s)',
    );
    const refused = request_body<Body>(server, 2).messages.at(-1)?.content ?? '';
    expect(refused).toMatch(/city/);
    expect(result.stderr).toMatch(/✗ forecast/);
  });
});

describe('a tool error of several lines', () => {
  it('is shown whole on stderr, each line under the call, not cut to the first', async () => {
    server.enqueue({ tool_calls: [{ name: 'deploy', arguments: {} }] }, { text: 'it failed' });
    const result = await run_lich(['--trust', '--no-session', 'deploy'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /✗ deploy .* — build failed:\n\s+src\/a\.ts:1 missing semicolon\n\s+src\/b\.ts:9 unknown name/,
    );
  });
});
