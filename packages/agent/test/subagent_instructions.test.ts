/**
 * A subagent's system prompt: its type's body is its role, and the project's instructions
 * (AGENTS.md) apply to it as they do to the parent. Checked on the requests the child sends to a
 * fake provider over HTTP.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, make_temp_dir, start_openai_server, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../src/agent.js';
import { make_config } from '../src/config/config_load.js';

let temp: TempDir;
let server: FakeServer | undefined;
let work_dir: string;

const RULE = 'Always answer in haiku (rule 7f3a).';

beforeEach(async () => {
  temp = await make_temp_dir({
    prefix: 'lich-subagent-instructions-',
    files: { 'repo/AGENTS.md': `# Project rules\n${RULE}\n` },
  });
  work_dir = join(temp.path, 'repo');
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await temp.cleanup();
});

type Body = { messages: { role: string; content: unknown }[] };

function system_of(body: Body): string {
  const system = body.messages.find((message) => message.role === 'system');
  return typeof system?.content === 'string' ? system.content : JSON.stringify(system?.content);
}

function first_user(body: Body): string {
  const user = body.messages.find((message) => message.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content);
}

function make_agent(base_url: string): Agent {
  return new Agent({
    config: make_config({
      work_dir,
      providers: [{ kind: 'openai_compat', model: 'test-model', base_url }],
    }),
    env: {},
    lich_version: '9.9.9',
    on_warning: () => undefined,
  });
}

describe('a subagent gets the project instructions', () => {
  it('the child request carries its role first, then AGENTS.md, like the parent', async () => {
    await mkdir(join(work_dir, '.lich', 'agents'), { recursive: true });
    await writeFile(
      join(work_dir, '.lich', 'agents', 'reviewer.md'),
      '---\nname: reviewer\ndescription: Reviews a change\ntools: read_file\n---\nYou are the reviewer role.\n',
    );
    server = await start_openai_server();
    server.enqueue(
      {
        tool_calls: [
          {
            name: 'task',
            arguments: { description: 'review', prompt: 'job: review', subagent_type: 'reviewer' },
          },
        ],
      },
      { text: 'reviewed' },
      { text: 'done' },
    );
    const agent = make_agent(server.base_url);
    try {
      const result = await agent.run({ input: 'please review', session: false });
      expect(result.outcome.final).toBe('done');
    } finally {
      await agent.close();
    }
    const bodies = server.requests.map((request) => request.body as Body);
    expect(bodies).toHaveLength(3);
    const child = bodies.find((body) => first_user(body) === 'job: review');
    const parent = bodies[0] as Body;
    expect(child).toBeDefined();
    const child_system = system_of(child as Body);
    expect(system_of(parent)).toContain(RULE);
    expect(child_system.startsWith('You are the reviewer role.')).toBe(true);
    expect(child_system).toContain(RULE);
    // the role comes before the project's instructions, the environment after them
    expect(child_system.indexOf(RULE)).toBeGreaterThan(
      child_system.indexOf('You are the reviewer role.'),
    );
    expect(child_system.indexOf('# Environment')).toBeGreaterThan(child_system.indexOf(RULE));
  });
});
