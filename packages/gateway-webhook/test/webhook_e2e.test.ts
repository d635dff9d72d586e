/**
 * The webhook gateway end to end, as it runs for real: signed HTTP in, the GatewayBus, the real
 * SessionHost over an Agent talking to the testkit's fake OpenAI server, JSONL session files and
 * the JSONL gateway store; and the bin itself in a child process, drained by SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Agent, create_session_host, make_config } from '@lich/agent';
import type { Message } from '@lich/core';
import { content_text } from '@lich/core';
import { GatewayBus, open_jsonl_store } from '@lich/gateway';
import { type FakeServer, make_temp_dir, start_openai_server, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decode_webhook_secret, signed_headers } from '../src/standard_webhooks.js';
import { WebhookAdapter } from '../src/webhook_adapter.js';
import { post_raw, post_signed, SECRET } from './webhook_client.js';

const KEY = decode_webhook_secret(SECRET);
const BIN = resolve(import.meta.dirname, '..', 'dist', 'bin.js');

let temp: TempDir;
let model: FakeServer;
const cleanups: (() => Promise<unknown>)[] = [];

/** The messages of the model request `index` (negative: from the end). */
function sent(index: number): Message[] {
  const request = model.requests.at(index);
  if (request === undefined) throw new Error(`no model request ${index}`);
  return (request.body as { messages: Message[] }).messages;
}

/** The last user message of a request the fake model got. */
function last_user(body: unknown): string {
  const messages = (body as { messages: Message[] }).messages;
  return content_text(messages.findLast((message) => message.role === 'user')?.content ?? '');
}

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-webhook-e2e-' });
  model = await start_openai_server({
    respond: (request) => ({ text: `re: ${last_user(request.body)}` }),
  });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await model.close();
  await temp.cleanup();
});

/** A gateway in this process: agent, host, bus, adapter on a free port. */
async function start_gateway(options: { history_limit?: number } = {}) {
  const agent = new Agent({
    config: make_config({
      work_dir: temp.path,
      providers: [{ kind: 'openai_compat', model: 'fake-model', base_url: model.base_url }],
    }),
    env: {},
    on_warning: () => undefined,
  });
  const host = create_session_host({
    agent,
    history_limit: options.history_limit ?? 40,
    on_warning: () => undefined,
  });
  const adapter = new WebhookAdapter({ key: KEY, port: 0, max_body_bytes: 2048 });
  const store = await open_jsonl_store({ dir: join(temp.path, '.lich', 'gateway', 'webhook') });
  const bus = new GatewayBus({ host, adapter, access: { allow_users: ['u1'] }, store });
  await bus.start();
  await adapter.start(bus);
  const stop = async () => {
    await adapter.stop_intake();
    await bus.drain();
    await host.shutdown();
    await bus.close();
    await adapter.close();
  };
  cleanups.push(stop);
  return { url: adapter.url, host, bus, stop };
}

const say = (text: string, chat = 'chat-1') => ({ chat_id: chat, sender: { id: 'u1' }, text });

describe('the webhook gateway over the real host', () => {
  it("answers a signed request with the model's answer, and keeps the conversation", async () => {
    const { url, host } = await start_gateway();
    const first = await post_signed(url, KEY, say('my name is Ann'));
    expect(first).toMatchObject({
      status: 200,
      body: { status: 'answered', reply: 're: my name is Ann' },
    });
    const second = await post_signed(url, KEY, say('who am I?'));
    expect(second.body.reply).toBe('re: who am I?');
    // the second model call was seeded with the first exchange: one session per conversation
    const contents = sent(1).map((message) => message.content);
    expect(contents).toEqual(expect.arrayContaining(['my name is Ann', 're: my name is Ann']));
    const sessions = await host.list();
    expect(sessions.filter((session) => session.title === 'webhook:chat-1')).toHaveLength(1);
    expect(sessions[0]?.path).toMatch(/\.lich\/sessions\//);
  });

  it('lets no refused request reach the model', async () => {
    const { url } = await start_gateway();
    const body = JSON.stringify(say('hello'));
    const headers = (id: string, now_s?: number) => ({
      'content-type': 'application/json',
      ...signed_headers(KEY, id, body, now_s),
    });
    const statuses = [
      (await post_raw(url, body, { ...headers('a1'), 'webhook-signature': 'v1,AAAA' })).status,
      (await post_raw(url, body, headers('a2', Math.floor(Date.now() / 1000) - 600))).status,
      (await post_raw(url, 'x'.repeat(4096), headers('a3'))).status,
      (await post_raw(url, body, { ...headers('a4'), 'content-type': 'text/plain' })).status,
      (
        await post_raw(url, '{not json', {
          'content-type': 'application/json',
          ...signed_headers(KEY, 'a5', '{not json'),
        })
      ).status,
    ];
    expect(statuses).toEqual([401, 401, 413, 415, 400]);
    expect((await post_raw(url, body, headers('a6'))).status).toBe(200);
    expect((await post_raw(url, body, headers('a6'))).status).toBe(409);
    // a sender outside the allowlist is answered by the gateway, not the model
    const stranger = await post_signed(url, KEY, { ...say('hi'), sender: { id: 'u9' } });
    expect(stranger.body).toMatchObject({ status: 'ignored' });
    expect(model.requests).toHaveLength(1);
  });

  it('seeds each run with at most max_history_messages of the conversation', async () => {
    const { url } = await start_gateway({ history_limit: 6 });
    for (let index = 1; index <= 6; index += 1) {
      expect((await post_signed(url, KEY, say(`turn ${index}`))).status).toBe(200);
    }
    const last = sent(-1);
    const said = last.filter((message) => message.role !== 'system').map((m) => m.content);
    expect(said.length).toBeLessThanOrEqual(7);
    expect(said.at(-1)).toBe('turn 6');
    expect(said).not.toContain('turn 1');
  });

  it('continues a conversation from its session after a restart', async () => {
    const first = await start_gateway();
    await post_signed(first.url, KEY, say('remember 42'));
    await first.stop();
    cleanups.pop();
    const second = await start_gateway();
    const answer = await post_signed(second.url, KEY, say('what did I ask you to remember?'));
    expect(answer.body.reply).toBe('re: what did I ask you to remember?');
    const contents = sent(-1).map((message) => message.content);
    expect(contents).toEqual(expect.arrayContaining(['remember 42', 're: remember 42']));
  });
});

/** Runs the built bin; resolves its URL once it listens. */
function start_bin(
  work_dir: string,
  extra_args: readonly string[] = [],
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  return new Promise((resolve_url, reject) => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        '--port',
        '0',
        '--base-url',
        model.base_url,
        '--model',
        'fake-model',
        '--allow-user',
        'u1',
        ...extra_args,
      ],
      {
        cwd: work_dir,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: work_dir,
          LICH_WEBHOOK_SECRET: SECRET,
          OLLAMA_HOST: '127.0.0.1:9',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let text = '';
    child.stderr?.on('data', (part: Buffer) => {
      text += part.toString();
      const found = /listening on (http:\/\/\S+)/.exec(text);
      if (found?.[1] !== undefined) resolve_url({ child, url: found[1], stderr: () => text });
    });
    child.on('exit', (code) =>
      reject(new Error(`the bin exited (${code}) before listening:\n${text}`)),
    );
  });
}

describe('the lich-gateway-webhook bin', () => {
  it('drains on SIGTERM: the runs in flight finish, every accepted message is answered, exit 0', async () => {
    model.enqueue(
      ...Array.from({ length: 4 }, (_, index) => ({ text: `slow answer ${index}`, delay_ms: 400 })),
    );
    const { child, url, stderr } = await start_bin(temp.path);
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    const answers = Array.from({ length: 4 }, (_, index) =>
      post_signed(url, KEY, say(`question ${index}`, `chat-${index}`)),
    );
    await model.wait_for_requests(4, { timeout_ms: 15_000 });
    child.kill('SIGTERM');
    const settled = await Promise.all(answers);
    expect(settled.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(settled.map((answer) => answer.body.reply).sort()).toEqual([
      'slow answer 0',
      'slow answer 1',
      'slow answer 2',
      'slow answer 3',
    ]);
    expect(await exited).toBe(0);
    expect(stderr()).toMatch(/SIGTERM: draining/);
    expect(stderr()).toMatch(/gateway webhook stopped/);
  }, 30_000);
});

describe('a message that says nothing never stalls its conversation (S1)', () => {
  it('the bin answers 400 to an empty or blank text, and the conversation goes on', async () => {
    const { child, url, stderr } = await start_bin(temp.path);
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    expect(await post_signed(url, KEY, say('hello'))).toMatchObject({
      status: 200,
      body: { status: 'answered', reply: 're: hello' },
    });
    for (const blank of [' ', '', '\n\t ']) {
      const refused = await post_signed(url, KEY, say(blank));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ status: 'invalid' });
    }
    const after = await post_signed(url, KEY, say('are you there?'));
    expect(after).toMatchObject({ status: 200, body: { reply: 're: are you there?' } });
    expect(model.requests).toHaveLength(2);
    expect(stderr()).toMatch(/empty message from u1 was refused/);
  }, 30_000);

  it('a message whose run keeps failing is dead-lettered after three tries, and the next is answered', async () => {
    const gateway = await start_gateway();
    // a host that cannot take this one message (as a message logged by an older version could be)
    const prompt = gateway.host.prompt.bind(gateway.host);
    let tries = 0;
    gateway.host.prompt = async (session_id, text, options) => {
      if (text.includes('POISON')) {
        tries += 1;
        throw new Error('the session store is out of space');
      }
      return prompt(session_id, text, options);
    };
    const poison = await post_signed(gateway.url, KEY, say('POISON'));
    expect(poison).toMatchObject({ status: 200, body: { status: 'failed' } });
    expect(tries).toBe(3);
    const next = await post_signed(gateway.url, KEY, say('and now?'));
    expect(next).toMatchObject({ status: 200, body: { reply: 're: and now?' } });
  }, 30_000);

  it("loads the work dir config's plugin only when trusted: --trust, or an answer lich trust kept", async () => {
    const marker = join(temp.path, 'pwned-plugin.txt');
    await mkdir(join(temp.path, '.lich'), { recursive: true });
    await writeFile(
      join(temp.path, 'plugin.mjs'),
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\nexport default { name: 'evil', register() {} };\n`,
    );
    await writeFile(
      join(temp.path, '.lich', 'config.json'),
      JSON.stringify({ plugins: ['./plugin.mjs'] }),
    );
    const one_message = async (args: readonly string[]) => {
      const { child, url, stderr } = await start_bin(temp.path, args);
      const exited = new Promise((done) => child.once('exit', done));
      try {
        expect((await post_signed(url, KEY, say('hello'))).status).toBe(200);
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
      return stderr();
    };
    const untrusted = await one_message([]);
    expect(untrusted).toMatch(/plugins \.\/plugin\.mjs \(code run in-process\)/);
    expect(untrusted).toMatch(/this folder is not trusted \(lich trust, or --trust\)/);
    expect(existsSync(marker)).toBe(false);

    await one_message(['--trust']);
    expect(existsSync(marker)).toBe(true);
    await rm(marker);

    // HOME is the work dir: the answer lich trust keeps is in its .config/lich
    await mkdir(join(temp.path, '.config', 'lich'), { recursive: true });
    await writeFile(
      join(temp.path, '.config', 'lich', 'trusted_folders.json'),
      JSON.stringify({ folders: { [temp.path]: 'trusted' } }),
    );
    await one_message([]);
    expect(existsSync(marker)).toBe(true);
  }, 30_000);
});
