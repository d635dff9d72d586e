/**
 * Gateway nodes for the multi-process tests: the real `lich-gateway-webhook` bin in child
 * processes on one database (`--store`), replying asynchronously to a callback server that
 * records every delivery; and a sender that posts signed messages like a load balancer would
 * (to a random node, to another one when a node does not answer). Shared by `bench:gateway-pg`
 * and the multi-node tests of `@lich/store-postgres`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, Agent as HttpAgent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decode_webhook_secret, signed_headers } from '@lich/gateway-webhook';

const BIN = fileURLToPath(new URL('../../packages/gateway-webhook/dist/bin.js', import.meta.url));

export const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const KEY = decode_webhook_secret(SECRET);

/** One delivery to the callback URL. */
export interface Delivery {
  /** The Standard Webhooks id: the reply chunk's idempotency key, hashed. */
  id: string;
  chat_id: string;
  in_reply_to: string;
  text: string;
}

export interface Callbacks {
  url: string;
  deliveries: Delivery[];
  /** The notices sent (`type: 'notice'`: the owner told of a budget stop…). */
  notices: { chat_id: string; text: string }[];
  /** Resolves once `check` holds (checked after each delivery). */
  until(check: () => boolean, timeout_ms?: number): Promise<void>;
  close(): Promise<void>;
}

export async function start_callbacks(): Promise<Callbacks> {
  const deliveries: Delivery[] = [];
  const notices: { chat_id: string; text: string }[] = [];
  const watchers = new Set<() => void>();
  const server = createServer((incoming, response) => {
    const parts: Buffer[] = [];
    incoming.on('data', (part: Buffer) => parts.push(part));
    incoming.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString()) as Delivery & { type: string };
      if (body.type === 'notice') notices.push({ chat_id: body.chat_id, text: body.text });
      if (body.type === 'reply') {
        deliveries.push({
          id: String(incoming.headers['webhook-id']),
          chat_id: body.chat_id,
          in_reply_to: body.in_reply_to,
          text: body.text,
        });
      }
      response.writeHead(204).end();
      for (const watcher of watchers) watcher();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/replies`,
    deliveries,
    notices,
    until: (check, timeout_ms = 120_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          watchers.delete(watcher);
          reject(new Error(`callbacks: not there after ${timeout_ms} ms (${deliveries.length})`));
        }, timeout_ms);
        const watcher = () => {
          if (!check()) return;
          clearTimeout(timer);
          watchers.delete(watcher);
          resolve();
        };
        watchers.add(watcher);
        watcher();
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A gateway node: a child process listening on `url`. */
export interface GatewayNode {
  index: number;
  child: ChildProcess;
  url: string;
  stderr: () => string;
  alive: boolean;
  exited: Promise<number | null>;
}

/** Starts node `index` in its own folder (its own machine, as far as files go). */
export async function start_node(options: {
  index: number;
  dir: string;
  database_url: string;
  model_url: string;
  callback_url: string;
  max_concurrency?: number;
  node_args?: string[];
  /** More settings of the webhook section of `gateway.json` (`owner_chat`…). */
  gateway?: Record<string, unknown>;
  /** The node's user config (`~/.config/lich/config.json`: `budget`, `prices`…). */
  user_config?: Record<string, unknown>;
}): Promise<GatewayNode> {
  const dir = join(options.dir, `node-${options.index}`);
  await mkdir(join(dir, '.lich'), { recursive: true });
  await writeFile(
    join(dir, '.lich', 'gateway.json'),
    JSON.stringify({
      webhook: { rate_limit: false, store: options.database_url, ...options.gateway },
    }),
  );
  if (options.user_config !== undefined) {
    await mkdir(join(dir, '.config', 'lich'), { recursive: true });
    await writeFile(
      join(dir, '.config', 'lich', 'config.json'),
      JSON.stringify(options.user_config),
    );
  }
  const child = spawn(
    process.execPath,
    [
      ...(options.node_args ?? []),
      BIN,
      '--port',
      '0',
      '--reply',
      'async',
      '--callback-url',
      options.callback_url,
      '--base-url',
      options.model_url,
      '--model',
      'fake-model',
      '--allow-user',
      '*',
      ...(options.max_concurrency === undefined
        ? []
        : ['--max-concurrency', String(options.max_concurrency)]),
    ],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir,
        LICH_WEBHOOK_SECRET: SECRET,
        OLLAMA_HOST: '127.0.0.1:9',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let text = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const node: GatewayNode = {
    index: options.index,
    child,
    url: '',
    stderr: () => text,
    alive: true,
    exited,
  };
  void exited.then(() => {
    node.alive = false;
  });
  node.url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (part: Buffer) => {
      text += part.toString();
      const found = /listening on (http:\/\/\S+)/.exec(text);
      if (found?.[1] !== undefined) resolve(found[1]);
    });
    void exited.then((code) =>
      reject(new Error(`node ${options.index} exited (${code}): ${text}`)),
    );
  });
  return node;
}

/** Stops a node with SIGTERM (a drain) and resolves its exit code. */
export async function stop_node(node: GatewayNode): Promise<number | null> {
  if (node.alive) node.child.kill('SIGTERM');
  return node.exited;
}

const agent = new HttpAgent({ keepAlive: true, maxSockets: 64 });

/** POSTs one signed message; resolves the status, 0 when the node did not answer. */
export function post(url: string, chat: string, text: string, id: string): Promise<number> {
  const body = JSON.stringify({ chat_id: chat, sender: { id: `user-${chat}` }, text });
  return new Promise((resolve) => {
    const outgoing = request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', ...signed_headers(KEY, id, body) },
    });
    outgoing.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    outgoing.on('error', () => resolve(0));
    outgoing.end(body);
  });
}

/**
 * Sends message `text` of `chat` to a random live node, and to another one while a node does
 * not take it (a dead node, a draining one): the load balancer's part. Resolves once a node
 * accepted it (202), or said it had it already (200 duplicate, 409 replay).
 */
export async function send(
  nodes: readonly GatewayNode[],
  chat: string,
  text: string,
  id: string,
  random: () => number,
): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const live = nodes.filter((node) => node.alive);
    const node = live[Math.floor(random() * live.length)];
    if (node === undefined) throw new Error('no live node');
    const status = await post(node.url, chat, text, id);
    if (status === 202 || status === 200 || status === 409) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`message ${id} was taken by no node`);
}

/** A seeded random number generator (mulberry32), so a failing run can be replayed. */
export function seeded_random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Frees the sender's sockets. */
export function close_sender(): void {
  agent.destroy();
}

/**
 * What the callback server got, per chat: the replies in arrival order with redeliveries of one
 * id folded into its first, and how many deliveries were redeliveries.
 */
export function replies_by_chat(deliveries: readonly Delivery[]): {
  by_chat: Map<string, Delivery[]>;
  redelivered: number;
} {
  const seen = new Set<string>();
  const by_chat = new Map<string, Delivery[]>();
  let redelivered = 0;
  for (const delivery of deliveries) {
    if (seen.has(delivery.id)) {
      redelivered += 1;
      continue;
    }
    seen.add(delivery.id);
    const list = by_chat.get(delivery.chat_id) ?? [];
    list.push(delivery);
    by_chat.set(delivery.chat_id, list);
  }
  return { by_chat, redelivered };
}
