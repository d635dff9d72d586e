/**
 * The client for `lich tui --connect`: the agent runs in a `lich serve --stdio` child process
 * (or behind any `@lich/serve/client` transport), and the TUI talks the serve protocol to it.
 * The `LichClient` supervises the link: when the child dies it is spawned again (a new epoch)
 * and the TUI is told, so it loads its session there and resubscribes.
 */
import type { HostEvent, SessionInfo } from '@lich/agent';
import type { Message } from '@lich/core';
import type { ClientTransport, ReconnectOptions } from '@lich/serve/client';
import type { ConnectionState, TuiClient } from './client.js';

/** Options of `create_serve_client`. */
export interface ServeClientOptions {
  /** How to reach the server (a test's streams, a WebSocket); `spawn` when absent. */
  transport?: ClientTransport;
  /**
   * The `lich serve --stdio` to spawn (and spawn again when it dies). Its stderr never reaches
   * the terminal (it would tear the screen): it goes to `on_stderr`, or nowhere.
   */
  spawn?: {
    command: string;
    args: readonly string[];
    cwd?: string;
    env?: Readonly<Record<string, string | undefined>>;
    on_stderr?: (text: string) => void;
  };
  /** Restarts of a lost backend before giving up (default 5 attempts, from 100 ms, doubling). */
  reconnect?: ReconnectOptions;
  /** Sent in `initialize`. */
  version?: string;
}

type Listener = (event: HostEvent) => void;

/**
 * Connects and resolves with a `TuiClient` over the serve protocol; rejects when the server
 * cannot be started or does not answer `initialize`.
 *
 * Contract: events are delivered in order, at most once per seq and epoch; the subscriptions ask
 * to approve permission requests; a lost link is reported `lost`, its return `up`, and a backend
 * that could not be brought back `failed`; `close` ends the link (the child then stops) and is
 * idempotent.
 */
export async function create_serve_client(options: ServeClientOptions): Promise<TuiClient> {
  // loaded here: the in-process TUI never needs the protocol client
  const { LichClient, stdio_transport } = await import('@lich/serve/client');
  const spawn = options.spawn;
  const transport =
    options.transport ??
    (spawn === undefined
      ? undefined
      : stdio_transport({
          command: spawn.command,
          args: spawn.args,
          ...(spawn.cwd === undefined ? {} : { cwd: spawn.cwd }),
          ...(spawn.env === undefined ? {} : { env: spawn.env }),
          stderr: spawn.on_stderr ?? 'ignore',
        }));
  if (transport === undefined) throw new Error('create_serve_client needs a transport or spawn');
  const client = await LichClient.connect({
    transport,
    client_info: { name: 'lich-tui', ...(options.version ? { version: options.version } : {}) },
    reconnect: options.reconnect ?? { max_attempts: 5 },
  });
  const listeners = new Map<string, Set<Listener>>();
  client.on_event((event) => {
    for (const listener of listeners.get(event.session_id) ?? []) listener(event as HostEvent);
  });
  const connection_listeners = new Set<(state: ConnectionState) => void>();
  const report = (state: ConnectionState) => {
    for (const listener of [...connection_listeners]) listener(state);
  };
  let closing = false;
  let was_lost = false;
  client.on('state', (state) => {
    if (state === 'reconnecting') {
      was_lost = true;
      report({ kind: 'lost', reason: 'the backend went away' });
    } else if (state === 'open' && was_lost) {
      was_lost = false;
      report({ kind: 'up' });
    } else if (state === 'closed' && !closing) {
      report({ kind: 'failed', reason: 'the backend could not be restarted' });
    }
  });

  const info = (value: unknown) => value as SessionInfo;
  return {
    get epoch() {
      return client.server.epoch;
    },
    mode: 'serve',
    create: async (create_options) =>
      info(await client.request('session.new', create_options ?? {})),
    load: async (session_id) => info(await client.request('session.load', { session_id })),
    list: async () => (await client.request('session.list', {})).sessions.map(info),
    get: async (session_id) => info(await client.request('session.get', { session_id })),
    history: async (session_id) =>
      (await client.request('session.history', { session_id })).messages as Message[],
    prompt: (session_id, input, prompt_options) =>
      client.prompt(session_id, input, {
        ...(prompt_options?.client_request_id === undefined
          ? {}
          : { client_request_id: prompt_options.client_request_id }),
        ...(prompt_options?.attach_mentions === true ? { attach_mentions: true } : {}),
      }),
    follow_up: (session_id, text, options) =>
      client.request('run.follow_up', {
        session_id,
        text,
        ...(options?.attach_mentions === true ? { attach_mentions: true } : {}),
      }),
    steer: async (session_id, text) => {
      await client.request('run.steer', { session_id, text });
    },
    abort: async (session_id) => (await client.request('run.abort', { session_id })).aborted,
    interrupt: async (session_id) => client.request('run.interrupt', { session_id }),
    async subscribe(session_id, listener, subscribe_options = {}) {
      const set = listeners.get(session_id) ?? new Set<Listener>();
      listeners.set(session_id, set);
      set.add(listener);
      try {
        const outcome = await client.subscribe(session_id, {
          can_approve: true,
          ...(subscribe_options.after_seq === undefined
            ? {}
            : { after_seq: subscribe_options.after_seq }),
        });
        // another epoch than the caller saw: what it asked for is gone, whatever the server says
        const truncated =
          outcome.truncated ||
          (subscribe_options.epoch !== undefined &&
            subscribe_options.after_seq !== undefined &&
            subscribe_options.epoch !== outcome.epoch);
        let active = true;
        return {
          replayed: outcome.replayed,
          truncated,
          unsubscribe() {
            if (!active) return;
            active = false;
            set.delete(listener);
            if (set.size === 0) {
              listeners.delete(session_id);
              client.unsubscribe(session_id).catch(() => undefined);
            }
          },
        };
      } catch (error) {
        set.delete(listener);
        throw error;
      }
    },
    respond_permission: async (request_id, option, note) =>
      (
        await client.request('permission.respond', {
          request_id,
          option,
          ...(note === undefined ? {} : { note }),
        })
      ).accepted,
    set_approval_mode: async (session_id, mode) => {
      await client.request('session.set_approval_mode', { session_id, approval_mode: mode });
    },
    commands: async (session_id) =>
      (await client.request('commands.list', { session_id })).commands,
    run_command: (session_id, name, args) =>
      client.request('command.run', { session_id, name, ...(args === undefined ? {} : { args }) }),
    rewind_points: async (session_id) =>
      (await client.request('session.rewind_points', { session_id })).points,
    rewind: (session_id, request) => client.request('session.rewind', { session_id, ...request }),
    on_connection(listener) {
      connection_listeners.add(listener);
      return () => connection_listeners.delete(listener);
    },
    async close() {
      closing = true;
      await client.close();
    },
  };
}
