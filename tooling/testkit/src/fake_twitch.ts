import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { condition } from './condition.js';

/**
 * A small fake of Twitch chat on 127.0.0.1: IRC over WebSocket (subprotocol `irc`), as tmi.js
 * speaks it. It answers CAP REQ, PASS, NICK (with the 001…376 welcome), JOIN (with USERSTATE and
 * ROOMSTATE), PING, and PRIVMSG from the bot (recorded, answered with USERSTATE); a test makes
 * viewers speak with `say`. Point tmi.js at it with
 * `connection: { server: '127.0.0.1', port: fake.port, secure: false }`.
 */

/** A viewer as Twitch tags them. */
export interface FakeTwitchUser {
  /** The login name (lower case). */
  login: string;
  user_id: string;
  display_name?: string;
  mod?: boolean;
  broadcaster?: boolean;
}

/** A PRIVMSG the bot sent. */
export interface FakeTwitchSent {
  channel: string;
  text: string;
  /** The `reply-parent-msg-id` tag the bot sent, when it replied to a message. */
  reply_to?: string;
  /** When the fake received it (ms since the epoch). */
  at: number;
}

/** What `start_fake_twitch` started on loopback; `close` ends every socket and the server. */
export interface FakeTwitch {
  readonly port: number;
  readonly url: string;
  /** Every PRIVMSG the bot sent, in order. */
  readonly sent: readonly FakeTwitchSent[];
  /** Channels the bot joined (with `#`). */
  readonly joined: readonly string[];
  /** The PASS and NICK the client logged in with. */
  readonly login: { pass?: string; nick?: string };
  /** Resolves when the bot has joined `channel` (with or without `#`). */
  wait_for_join(channel: string, options?: { timeout_ms?: number }): Promise<void>;
  /** Makes `user` say `text` in `channel`; returns the message id tag. */
  say(channel: string, user: FakeTwitchUser, text: string): string;
  /** Resolves once `count` messages were sent (default timeout 5000 ms). */
  wait_for_sent(count: number, options?: { timeout_ms?: number }): Promise<FakeTwitchSent[]>;
  /** Sends one raw IRC line to every client (a NOTICE, a RECONNECT…). */
  raw(line: string): void;
  close(): Promise<void>;
}

function channel_name(channel: string): string {
  return channel.startsWith('#') ? channel.toLowerCase() : `#${channel.toLowerCase()}`;
}

function escape_tag(value: string): string {
  return value
    .replaceAll('\\', '\\\\')
    .replaceAll(';', '\\:')
    .replaceAll(' ', '\\s')
    .replaceAll('\r', '\\r')
    .replaceAll('\n', '\\n');
}

let message_counter = 0;

/**
 * Starts the fake on 127.0.0.1 (a free port). Contract: a client is welcomed after NICK; every
 * JOIN is acknowledged; `close` ends every socket and the server.
 */
export async function start_fake_twitch(
  options: {
    /** The bot's badges in every channel's USERSTATE (`moderator/1`); default none. */
    bot_badges?: string;
  } = {},
): Promise<FakeTwitch> {
  const bot_badges = options.bot_badges ?? '';
  const bot_mod = /(?:^|,)(?:broadcaster|moderator)\//.test(bot_badges) ? 1 : 0;
  const sent: FakeTwitchSent[] = [];
  const joined: string[] = [];
  const login: { pass?: string; nick?: string } = {};
  const clients = new Map<WebSocket, { nick: string }>();
  const sockets = new Set<Socket>();
  const changed = condition('fake twitch');
  const notify = changed.notify;

  const server = createServer((_request, response) => response.writeHead(426).end());
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const wss = new WebSocketServer({
    server,
    handleProtocols: (protocols) => (protocols.has('irc') ? 'irc' : false),
  });
  wss.on('connection', (socket) => {
    const client = { nick: '' };
    clients.set(socket, client);
    socket.on('message', (raw) => {
      for (const line of String(raw).split('\r\n')) if (line) on_line(socket, client, line);
    });
    socket.on('close', () => clients.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const send = (socket: WebSocket, line: string) => socket.send(`${line}\r\n`);

  function on_line(socket: WebSocket, client: { nick: string }, raw_line: string): void {
    // a client may send tags too (`@reply-parent-msg-id=… PRIVMSG …`)
    const tags = raw_line.startsWith('@') ? raw_line.slice(1, raw_line.indexOf(' ')) : '';
    const line = tags === '' ? raw_line : raw_line.slice(raw_line.indexOf(' ') + 1);
    const [command = '', ...rest] = line.split(' ');
    const argument = rest.join(' ');
    switch (command.toUpperCase()) {
      case 'CAP':
        send(socket, `:tmi.twitch.tv CAP * ACK :${argument.replace(/^REQ :/, '')}`);
        break;
      case 'PASS':
        login.pass = argument;
        break;
      case 'NICK': {
        client.nick = argument.toLowerCase();
        login.nick = client.nick;
        const nick = client.nick;
        for (const [code, text] of [
          ['001', 'Welcome, GLHF!'],
          ['002', 'Your host is tmi.twitch.tv'],
          ['003', 'This server is rather new'],
          ['004', '-'],
          ['375', '-'],
          ['372', 'You are in a maze of twisty passages, all alike.'],
          ['376', '>'],
        ]) {
          send(socket, `:tmi.twitch.tv ${code} ${nick} :${text}`);
        }
        send(
          socket,
          `@badge-info=;badges=;color=;display-name=${nick};emote-sets=0;user-id=1;user-type= :tmi.twitch.tv GLOBALUSERSTATE`,
        );
        break;
      }
      case 'JOIN': {
        for (const name of argument.split(',')) {
          const channel = channel_name(name);
          send(
            socket,
            `:${client.nick}!${client.nick}@${client.nick}.tmi.twitch.tv JOIN ${channel}`,
          );
          send(
            socket,
            `@badge-info=;badges=${bot_badges};color=;display-name=${client.nick};emote-sets=0;mod=${bot_mod};subscriber=0;user-type= :tmi.twitch.tv USERSTATE ${channel}`,
          );
          send(
            socket,
            `@emote-only=0;followers-only=-1;r9k=0;room-id=1;slow=0;subs-only=0 :tmi.twitch.tv ROOMSTATE ${channel}`,
          );
          joined.push(channel);
        }
        notify();
        break;
      }
      case 'PING':
        send(socket, `:tmi.twitch.tv PONG tmi.twitch.tv :${argument.replace(/^:/, '')}`);
        break;
      case 'PRIVMSG': {
        const space = argument.indexOf(' ');
        const channel = channel_name(argument.slice(0, space));
        const text = argument.slice(space + 1).replace(/^:/, '');
        const reply_to = /(?:^|;)reply-parent-msg-id=([^;]*)/.exec(tags)?.[1];
        sent.push({ channel, text, at: Date.now(), ...(reply_to ? { reply_to } : {}) });
        send(
          socket,
          `@badge-info=;badges=${bot_badges};color=;display-name=${client.nick};emote-sets=0;mod=${bot_mod};subscriber=0;user-type= :tmi.twitch.tv USERSTATE ${channel}`,
        );
        notify();
        break;
      }
      default:
        break;
    }
  }

  const wait_until = changed.until;

  return {
    port,
    url: `ws://127.0.0.1:${port}`,
    sent,
    joined,
    login,
    wait_for_join: (channel, options) =>
      wait_until(
        () => joined.includes(channel_name(channel)),
        `JOIN ${channel}`,
        options?.timeout_ms,
      ),
    say(channel, user, text) {
      message_counter += 1;
      const id = `fake-${message_counter}`;
      const badges = [user.broadcaster ? 'broadcaster/1' : '', user.mod ? 'moderator/1' : '']
        .filter(Boolean)
        .join(',');
      const tags = [
        'badge-info=',
        `badges=${badges}`,
        'color=',
        `display-name=${escape_tag(user.display_name ?? user.login)}`,
        'emotes=',
        'first-msg=0',
        'flags=',
        `id=${id}`,
        `mod=${user.mod ? 1 : 0}`,
        'room-id=1',
        'subscriber=0',
        `tmi-sent-ts=${Date.now()}`,
        'turbo=0',
        `user-id=${user.user_id}`,
        `user-type=${user.mod ? 'mod' : ''}`,
      ].join(';');
      const login_name = user.login.toLowerCase();
      const line = `@${tags} :${login_name}!${login_name}@${login_name}.tmi.twitch.tv PRIVMSG ${channel_name(channel)} :${text}`;
      for (const socket of clients.keys()) send(socket, line);
      return id;
    },
    async wait_for_sent(count, options) {
      await wait_until(() => sent.length >= count, `${count} sent messages`, options?.timeout_ms);
      return sent.slice(0, count);
    },
    raw(line) {
      for (const socket of clients.keys()) send(socket, line);
    },
    async close() {
      for (const socket of clients.keys()) socket.terminate();
      wss.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
