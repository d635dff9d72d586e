/**
 * The webhook gateway under load: the real `lich-gateway-webhook` bin in a child process, in
 * `async` mode, against the fake OpenAI server (answering at once with `re: <the message>`).
 * Each run sends its messages in rounds: round k sends message k of every conversation (32
 * requests in flight, at every scale), so a conversation's messages are sent in order and queue
 * up in the gateway while earlier ones run; the replies come back to a callback server.
 * Measured: messages per second from the first send to the last reply, the gateway's CPU time
 * per message, that every conversation's replies came in send order and answer the right message
 * (and that SIGTERM then drains it to exit 0), and the child's peak RSS (VmHWM): at most 150 MB,
 * and flat from 50 to 200 conversations. Linux only (it reads /proc). `pnpm bench:gateway`. */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, Agent as HttpAgent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decode_webhook_secret, signed_headers } from '@lich/gateway-webhook';
import { start_openai_server } from '@lich/testkit';
import type { BenchRow } from './types.js';

/**
 * Node flags of the gateway process: what the package README recommends to operators
 * (`NODE_OPTIONS=--max-old-space-size=256`: V8 then grows its heap by a factor of about 1.5 over
 * what is live instead of 4). `LICH_BENCH_NODE_ARGS=""` measures Node's defaults.
 */
const NODE_ARGS = (process.env.LICH_BENCH_NODE_ARGS ?? '--max-old-space-size=256')
  .split(' ')
  .filter(Boolean);

/** Requests in flight at once, the same at every scale. */
const SENDERS = 32;
/**
 * The 200 × 20, the same number of conversations at 50, and 50 conversations with the
 * same 4,000 messages: peak RSS grows with how long V8 has been allowed to grow its heap, so
 * "flat from 50 to 200 conversations" is judged between the two runs of 4,000 messages.
 */
const SCALES = [
  { conversations: 50, messages: 20 },
  { conversations: 50, messages: 80 },
  { conversations: 200, messages: 20 },
];
const TARGET_RSS_MB = 150;
/** Peak RSS at 200 conversations may be this much above 50 and still count as flat. */
const FLAT_RATIO = 1.25;
const BIN = fileURLToPath(new URL('../../packages/gateway-webhook/dist/bin.js', import.meta.url));

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const KEY = decode_webhook_secret(SECRET);

interface Callbacks {
  url: string;
  /** chat id → the reply texts, in arrival order. */
  replies: Map<string, string[]>;
  count(): number;
  until(total: number): Promise<void>;
  close(): Promise<void>;
}

async function start_callbacks(): Promise<Callbacks> {
  const replies = new Map<string, string[]>();
  let total = 0;
  let wake = () => {};
  const server = createServer((incoming, response) => {
    const parts: Buffer[] = [];
    incoming.on('data', (part: Buffer) => parts.push(part));
    incoming.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString()) as {
        type: string;
        chat_id: string;
        text: string;
      };
      if (body.type === 'reply') {
        const list = replies.get(body.chat_id) ?? [];
        list.push(body.text);
        replies.set(body.chat_id, list);
        total += 1;
      }
      response.writeHead(204).end();
      wake();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/replies`,
    replies,
    count: () => total,
    until: (wanted) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${total} of ${wanted} replies after 10 minutes`)),
          600_000,
        );
        wake = () => {
          if (total < wanted) return;
          clearTimeout(timer);
          resolve();
        };
        wake();
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const agent = new HttpAgent({ keepAlive: true, maxSockets: 64 });

/** POSTs one signed message; resolves the status. */
function post(url: string, chat: string, text: string, id: string): Promise<number> {
  const body = JSON.stringify({ chat_id: chat, sender: { id: `user-${chat}` }, text });
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', ...signed_headers(KEY, id, body) },
    });
    outgoing.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** CPU time (user + system) the process has used, in ms. */
function cpu_ms(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second)
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function peak_rss_mb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}

interface ScaleResult {
  conversations: number;
  messages: number;
  messages_per_s: number;
  ordered: boolean;
  peak_rss_mb: number;
  idle_rss_mb: number;
  cpu_ms_per_message: number;
  clean_exit: boolean;
}

async function run_scale(
  conversations: number,
  messages: number,
  model_url: string,
): Promise<ScaleResult> {
  const dir = await mkdtemp(join(tmpdir(), 'lich-bench-gateway-'));
  const callbacks = await start_callbacks();
  let child: ChildProcess | undefined;
  try {
    await mkdir(join(dir, '.lich'), { recursive: true });
    // one sender per conversation sends 20 messages at once: no per-sender limit in the bench
    await writeFile(
      join(dir, '.lich', 'gateway.json'),
      JSON.stringify({ webhook: { rate_limit: false } }),
    );
    const started = spawn(
      process.execPath,
      [
        ...NODE_ARGS,
        BIN,
        '--port',
        '0',
        '--reply',
        'async',
        '--callback-url',
        callbacks.url,
        '--base-url',
        model_url,
        '--model',
        'fake-model',
        '--allow-user',
        '*',
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
    child = started;
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      started.stderr?.on('data', (part: Buffer) => {
        text += part.toString();
        const found = /listening on (http:\/\/\S+)/.exec(text);
        if (found?.[1] !== undefined) resolve(found[1]);
      });
      started.on('exit', (code) => reject(new Error(`the gateway exited (${code}): ${text}`)));
    });
    const idle = peak_rss_mb(started.pid as number);
    const total = conversations * messages;
    const began = performance.now();
    // round k sends message k of every conversation, at most SENDERS requests in flight; a
    // conversation's message k+1 goes only after its message k was accepted
    for (let index = 0; index < messages; index += 1) {
      let next = 0;
      await Promise.all(
        Array.from({ length: SENDERS }, async () => {
          while (next < conversations) {
            const chat = `c${next}`;
            next += 1;
            const status = await post(url, chat, `${chat} m${index}`, `${chat}-${index}`);
            if (status !== 202) throw new Error(`message ${chat} m${index}: HTTP ${status}`);
          }
        }),
      );
    }
    await callbacks.until(total);
    const seconds = (performance.now() - began) / 1000;
    const peak = peak_rss_mb(started.pid as number);
    const cpu = cpu_ms(started.pid as number);
    let ordered = callbacks.replies.size === conversations;
    for (let chat_index = 0; chat_index < conversations; chat_index += 1) {
      const chat = `c${chat_index}`;
      const expected = Array.from({ length: messages }, (_, index) => `re: ${chat} m${index}`);
      const got = callbacks.replies.get(chat) ?? [];
      if (got.join('\n') !== expected.join('\n')) ordered = false;
    }
    const exited = new Promise<number | null>((resolve) => started.on('exit', resolve));
    started.kill('SIGTERM');
    const code = await exited;
    return {
      conversations,
      messages,
      messages_per_s: total / seconds,
      ordered,
      peak_rss_mb: peak,
      idle_rss_mb: idle,
      cpu_ms_per_message: cpu / total,
      clean_exit: code === 0,
    };
  } finally {
    if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
    await callbacks.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchRow[]> {
  const model = await start_openai_server({
    record_requests: false,
    respond: (incoming) => {
      const messages = (incoming.body as { messages: { role: string; content: string }[] })
        .messages;
      const last = messages.findLast((message) => message.role === 'user');
      return { text: `re: ${last?.content ?? ''}` };
    },
  });
  const results: ScaleResult[] = [];
  try {
    for (const { conversations, messages } of SCALES) {
      process.stderr.write(`  ${conversations} conversations × ${messages} messages…\n`);
      results.push(await run_scale(conversations, messages, model.base_url));
    }
  } finally {
    await model.close();
    agent.destroy();
  }
  const rows: BenchRow[] = [];
  for (const result of results) {
    const flags = NODE_ARGS.length === 0 ? 'node defaults' : NODE_ARGS.join(' ');
    const label = `${result.conversations} conv × ${result.messages} msgs (${flags})`;
    rows.push(
      {
        bench: 'gateway',
        metric: `throughput, ${label}`,
        lich: result.messages_per_s,
        unit: 'msg/s',
      },
      {
        bench: 'gateway',
        metric: `gateway CPU per message (start-up included), ${label}`,
        lich: result.cpu_ms_per_message,
        unit: 'ms',
      },
      {
        bench: 'gateway',
        metric: `order per conversation + exit 0 on SIGTERM, ${label}`,
        lich: result.ordered && result.clean_exit ? 1 : 0,
        unit: 'ok',
        target: 'every conversation in send order, drained',
        pass: result.ordered && result.clean_exit,
      },
      {
        bench: 'gateway',
        metric: `peak RSS of the gateway, ${label}`,
        lich: result.peak_rss_mb,
        unit: 'MB',
        target: `<= ${TARGET_RSS_MB} MB`,
        pass: result.peak_rss_mb <= TARGET_RSS_MB,
      },
      {
        bench: 'gateway',
        metric: `RSS of the gateway once listening, before the load, ${label}`,
        lich: result.idle_rss_mb,
        unit: 'MB',
      },
    );
  }
  const [, small, large] = results;
  if (small !== undefined && large !== undefined) {
    const ratio = large.peak_rss_mb / small.peak_rss_mb;
    rows.push({
      bench: 'gateway',
      metric: `peak RSS, ${large.conversations} vs ${small.conversations} conversations, 4000 msgs`,
      lich: large.peak_rss_mb,
      baseline: small.peak_rss_mb,
      baseline_name: `${small.conversations} conv`,
      unit: 'MB',
      ratio,
      target: `ratio <= ${FLAT_RATIO} (flat)`,
      pass: ratio <= FLAT_RATIO,
    });
  }
  return rows;
}
