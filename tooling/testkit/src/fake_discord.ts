import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { condition } from './condition.js';

/**
 * A small fake of Discord's API on 127.0.0.1: the Gateway (WebSocket, JSON encoding: HELLO,
 * IDENTIFY, READY, GUILD_CREATE, heartbeats, dispatches) and the REST routes a bot uses to answer
 * (`/gateway/bot`, channel messages, typing, application commands). Point discord.js at it with
 * `rest: { api: fake.api_url }`; the gateway URL comes from `/gateway/bot` as with Discord.
 */

/** A user as Discord sends it. */
export interface FakeDiscordUser {
  id: string;
  username: string;
  bot?: boolean;
}

/** A text channel or thread of a fake guild. */
export interface FakeDiscordChannel {
  id: string;
  name: string;
  /** A thread's parent channel; absent for a text channel. */
  parent_id?: string;
}

/** A guild the bot is in, announced with GUILD_CREATE after READY. */
export interface FakeDiscordGuild {
  id: string;
  name: string;
  channels: FakeDiscordChannel[];
}

/** A message the bot sent through REST. */
export interface FakeDiscordSent {
  channel_id: string;
  content: string;
  /** The request body as sent (allowed_mentions, message_reference…). */
  body: Record<string, unknown>;
  id: string;
}

/** What a test says a user wrote. */
export interface FakeDiscordPost {
  channel_id: string;
  /** Absent for a DM. */
  guild_id?: string;
  author: FakeDiscordUser;
  content: string;
  /** Users mentioned in the message (the bot, for a mention). */
  mentions?: FakeDiscordUser[];
  /** A reply to this message id. */
  reply_to?: string;
  /** Files attached: served by the fake at `<cdn_url>/attachments/<id>/<filename>`. */
  attachments?: FakeDiscordAttachment[];
}

/** A file a post carries, as Discord describes it, and its bytes. */
export interface FakeDiscordAttachment {
  filename: string;
  /** `image/png`…; absent when Discord could not tell. */
  content_type?: string;
  bytes: Buffer;
  /** The size Discord reports; default the bytes' length. */
  size?: number;
  /** Where it is said to be; default the fake's own CDN path (another host, to test refusal). */
  url?: string;
}

/** Options of `start_fake_discord`. */
export interface FakeDiscordOptions {
  bot?: FakeDiscordUser;
  application_id?: string;
  guilds?: FakeDiscordGuild[];
  /** Intent bits IDENTIFY must carry; without them the gateway closes with 4014. */
  required_intents?: number;
}

/** What `start_fake_discord` started on loopback; `close` ends every socket and the server. */
export interface FakeDiscord {
  /** REST base for discord.js's `rest.api`: `http://127.0.0.1:<port>/api`. */
  readonly api_url: string;
  readonly gateway_url: string;
  readonly bot: FakeDiscordUser;
  readonly application_id: string;
  /** The fake's CDN root (its own host): where posted attachments are served. */
  readonly cdn_url: string;
  /** The attachment paths the CDN was asked for, in order. */
  readonly downloads: readonly string[];
  /** Every message the bot sent, in order. */
  readonly sent: readonly FakeDiscordSent[];
  /** Channel ids the bot sent a typing indicator to, in order. */
  readonly typing: readonly string[];
  /** Application command bodies the bot registered (PUT), last one wins. */
  readonly commands: readonly unknown[];
  /** IDENTIFY payloads received. */
  readonly identified: readonly Record<string, unknown>[];
  /** Resolves when a session is READY (a client identified and got its guilds). */
  ready(options?: { timeout_ms?: number }): Promise<void>;
  /** Dispatches MESSAGE_CREATE as if `post.author` wrote it; returns the message id. */
  post(post: FakeDiscordPost): string;
  /** Dispatches any event to every identified session. */
  dispatch(type: string, data: unknown): void;
  /** Resolves once `count` messages were sent (default timeout 5000 ms). */
  wait_for_sent(count: number, options?: { timeout_ms?: number }): Promise<FakeDiscordSent[]>;
  close(): Promise<void>;
}

const HEARTBEAT_INTERVAL_MS = 41_250;
const DISALLOWED_INTENTS = 4014;

let snowflake_counter = 0n;
function snowflake(): string {
  snowflake_counter += 1n;
  return ((BigInt(Date.now() - 1_420_070_400_000) << 22n) + snowflake_counter).toString();
}

function user_payload(user: FakeDiscordUser): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    discriminator: '0',
    global_name: user.username,
    avatar: null,
    bot: user.bot ?? false,
  };
}

function guild_payload(guild: FakeDiscordGuild, bot: FakeDiscordUser): Record<string, unknown> {
  const now = new Date().toISOString();
  const channels = guild.channels.filter((channel) => channel.parent_id === undefined);
  const threads = guild.channels.filter((channel) => channel.parent_id !== undefined);
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    owner_id: '1',
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
    premium_tier: 0,
    system_channel_flags: 0,
    preferred_locale: 'en-US',
    roles: [
      {
        id: guild.id,
        name: '@everyone',
        permissions: '1071698660929',
        position: 0,
        color: 0,
        hoist: false,
        managed: false,
        mentionable: false,
        flags: 0,
      },
    ],
    emojis: [],
    stickers: [],
    features: [],
    joined_at: now,
    large: false,
    unavailable: false,
    member_count: 2,
    voice_states: [],
    members: [{ user: user_payload(bot), roles: [], joined_at: now, deaf: false, mute: false }],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
    channels: channels.map((channel, position) => ({
      id: channel.id,
      type: 0,
      name: channel.name,
      position,
      permission_overwrites: [],
      parent_id: null,
      nsfw: false,
    })),
    threads: threads.map((thread) => ({
      id: thread.id,
      type: 11,
      name: thread.name,
      guild_id: guild.id,
      parent_id: thread.parent_id,
      owner_id: '1',
      message_count: 0,
      member_count: 1,
      thread_metadata: {
        archived: false,
        auto_archive_duration: 60,
        archive_timestamp: now,
        locked: false,
      },
    })),
  };
}

async function read_body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send_json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/**
 * Starts the fake on 127.0.0.1 (a free port). Contract: every session that identifies with the
 * required intents gets READY, then one GUILD_CREATE per guild; heartbeats are acknowledged;
 * `close` ends every socket and the server.
 */
export async function start_fake_discord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const bot = options.bot ?? { id: '900000000000000001', username: 'lichbot', bot: true };
  const application_id = options.application_id ?? bot.id;
  const guilds = options.guilds ?? [];
  const sent: FakeDiscordSent[] = [];
  const typing: string[] = [];
  const files = new Map<string, Buffer>();
  const downloads: string[] = [];
  let commands: unknown[] = [];
  const identified: Record<string, unknown>[] = [];
  const sessions = new Set<{ socket: WebSocket; seq: number }>();
  const sockets = new Set<Socket>();
  const changed = condition('fake discord');
  let ready_count = 0;
  const notify = changed.notify;

  const server = createServer((request, response) => {
    handle_rest(request, response).catch((error: unknown) =>
      send_json(response, 500, { message: String(error), code: 0 }),
    );
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request, socket, head) => {
    if (!request.url?.startsWith('/gateway')) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => on_gateway(ws));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const gateway_url = `ws://127.0.0.1:${port}/gateway`;

  function send(session: { socket: WebSocket; seq: number }, type: string, data: unknown): void {
    session.seq += 1;
    session.socket.send(JSON.stringify({ op: 0, t: type, s: session.seq, d: data }));
  }

  function on_gateway(socket: WebSocket): void {
    const session = { socket, seq: 0 };
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: HEARTBEAT_INTERVAL_MS } }));
    socket.on('message', (raw) => {
      const frame = JSON.parse(String(raw)) as { op: number; d: Record<string, unknown> };
      if (frame.op === 1) socket.send(JSON.stringify({ op: 11 }));
      else if (frame.op === 2) identify(session, frame.d);
      else if (frame.op === 6) {
        sessions.add(session);
        send(session, 'RESUMED', {});
      }
    });
    socket.on('close', () => sessions.delete(session));
  }

  function identify(session: { socket: WebSocket; seq: number }, data: Record<string, unknown>) {
    identified.push(data);
    const intents = Number(data.intents ?? 0);
    const required = options.required_intents ?? 0;
    if ((intents & required) !== required) {
      session.socket.close(DISALLOWED_INTENTS, 'Disallowed intent(s).');
      return;
    }
    sessions.add(session);
    send(session, 'READY', {
      v: 10,
      user: { ...user_payload(bot), bot: true, verified: true, mfa_enabled: false, flags: 0 },
      guilds: guilds.map((guild) => ({ id: guild.id, unavailable: true })),
      session_id: randomUUID(),
      resume_gateway_url: gateway_url,
      shard: [0, 1],
      application: { id: application_id, flags: 0 },
      private_channels: [],
      relationships: [],
    });
    for (const guild of guilds) send(session, 'GUILD_CREATE', guild_payload(guild, bot));
    ready_count += 1;
    notify();
  }

  async function handle_rest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', base);
    if (request.method === 'GET' && url.pathname.startsWith('/attachments/')) {
      downloads.push(url.pathname);
      const file = files.get(url.pathname);
      if (file === undefined) response.writeHead(404).end();
      else response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file);
      return;
    }
    const path = url.pathname.replace(/^\/api(\/v\d+)?/, '');
    const body_text = await read_body(request);
    const body = body_text ? (JSON.parse(body_text) as Record<string, unknown>) : {};
    if (request.method === 'GET' && path === '/gateway/bot') {
      send_json(response, 200, {
        url: gateway_url,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
      });
      return;
    }
    if (request.method === 'GET' && path === '/users/@me') {
      send_json(response, 200, user_payload(bot));
      return;
    }
    const typing_match = /^\/channels\/(\d+)\/typing$/.exec(path);
    if (request.method === 'POST' && typing_match) {
      typing.push(typing_match[1] as string);
      response.writeHead(204).end();
      return;
    }
    const message_match = /^\/channels\/(\d+)\/messages$/.exec(path);
    if (request.method === 'POST' && message_match) {
      const channel_id = message_match[1] as string;
      const id = snowflake();
      const content = typeof body.content === 'string' ? body.content : '';
      sent.push({ channel_id, content, body, id });
      notify();
      send_json(response, 200, message_payload({ id, channel_id, author: bot, content }));
      return;
    }
    if (request.method === 'PUT' && /^\/applications\/\d+(\/guilds\/\d+)?\/commands$/.test(path)) {
      commands = Array.isArray(body) ? body : [];
      send_json(
        response,
        200,
        commands.map((command) => ({
          ...(command as object),
          id: snowflake(),
          application_id,
          version: '1',
        })),
      );
      return;
    }
    send_json(response, 404, { message: `404: Not Found (${request.method} ${path})`, code: 0 });
  }

  function message_payload(post: {
    id: string;
    channel_id: string;
    guild_id?: string;
    author: FakeDiscordUser;
    content: string;
    mentions?: FakeDiscordUser[];
    reply_to?: string;
    attachments?: FakeDiscordAttachment[];
  }): Record<string, unknown> {
    return {
      id: post.id,
      channel_id: post.channel_id,
      ...(post.guild_id === undefined ? { channel_type: 1 } : { guild_id: post.guild_id }),
      author: user_payload(post.author),
      content: post.content,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: (post.mentions ?? []).map(user_payload),
      mention_roles: [],
      attachments: (post.attachments ?? []).map((attachment) => {
        const id = snowflake();
        const path = `/attachments/${id}/${attachment.filename}`;
        files.set(path, attachment.bytes);
        return {
          id,
          filename: attachment.filename,
          size: attachment.size ?? attachment.bytes.length,
          url: attachment.url ?? `${base}${path}`,
          proxy_url: attachment.url ?? `${base}${path}`,
          ...(attachment.content_type === undefined
            ? {}
            : { content_type: attachment.content_type }),
        };
      }),
      embeds: [],
      pinned: false,
      type: post.reply_to === undefined ? 0 : 19,
      ...(post.reply_to === undefined
        ? {}
        : { message_reference: { message_id: post.reply_to, channel_id: post.channel_id } }),
      ...(post.guild_id === undefined
        ? {}
        : { member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false } }),
    };
  }

  function dispatch(type: string, data: unknown): void {
    for (const session of sessions) send(session, type, data);
  }

  const wait_until = changed.until;

  return {
    api_url: `${base}/api`,
    cdn_url: base,
    downloads,
    gateway_url,
    bot,
    application_id,
    sent,
    typing,
    get commands() {
      return commands;
    },
    identified,
    ready: (wait_options) => wait_until(() => ready_count > 0, 'READY', wait_options?.timeout_ms),
    post(post) {
      const id = snowflake();
      dispatch('MESSAGE_CREATE', message_payload({ ...post, id }));
      return id;
    },
    dispatch,
    async wait_for_sent(count, wait_options) {
      await wait_until(
        () => sent.length >= count,
        `${count} sent messages`,
        wait_options?.timeout_ms,
      );
      return sent.slice(0, count);
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
