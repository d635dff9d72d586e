import type { ChildProcess } from 'node:child_process';
import { LineSplitter } from './line_splitter.js';

/** What a transport tells the client. */
export interface TransportHandlers {
  /** One message from the server (a JSON text). */
  line(text: string): void;
  /** The link is gone (`code` is the WebSocket close code or the process's exit code). */
  closed(info: { code?: number; reason: string }): void;
}

/** One open link to a server. */
export interface TransportLink {
  /** Sends one message (a JSON text without its `\n`). */
  send(line: string): void;
  /** Ends the link; `closed` is called once it is gone. */
  close(): void;
}

/**
 * How a `LichClient` reaches a server. `connect` is called once per (re)connection and resolves
 * when the link is open, or rejects when it cannot be made.
 */
export interface ClientTransport {
  /** For messages: `ws://127.0.0.1:4000/rpc`, `lich serve --stdio`. */
  readonly description: string;
  connect(handlers: TransportHandlers): Promise<TransportLink>;
}

/** Options of `ws_transport`. */
export interface WsTransportOptions {
  /** `ws://127.0.0.1:PORT/rpc` (the token file's `url`). */
  url: string;
  /** Sent as `Authorization: Bearer`, never in the URL. */
  token?: string;
  /** Give up opening after this long (default 10 000 ms). */
  handshake_timeout_ms?: number;
}

/**
 * A WebSocket link (the `ws` package, loaded on first use). The token goes in the
 * `Authorization` header; no `Origin` is sent.
 */
export function ws_transport(options: WsTransportOptions): ClientTransport {
  if (/[?#]/.test(options.url))
    throw new Error('the url must carry no query: the token goes in a header');
  return {
    description: options.url,
    connect: async (handlers) => {
      const { WebSocket } = await import('ws');
      const socket = new WebSocket(options.url, {
        headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
        handshakeTimeout: options.handshake_timeout_ms ?? 10_000,
        perMessageDeflate: false,
      });
      await new Promise<void>((resolve, reject) => {
        const fail = (error: Error) => {
          socket.off('open', open);
          reject(error);
        };
        const open = () => {
          socket.off('error', fail);
          resolve();
        };
        socket.once('open', open);
        socket.once('error', fail);
        socket.once('unexpected-response', (_request, response) => {
          socket.off('error', fail);
          socket.off('open', open);
          socket.on('error', () => undefined);
          reject(
            new Error(`${options.url}: HTTP ${response.statusCode} (refused before the upgrade)`),
          );
          response.resume();
          socket.terminate();
        });
      });
      socket.on('error', () => undefined);
      socket.on('message', (data, is_binary) => {
        if (is_binary) return;
        handlers.line(data.toString());
      });
      socket.once('close', (code, reason) => handlers.closed({ code, reason: reason.toString() }));
      return {
        send: (line) => {
          if (socket.readyState === socket.OPEN) socket.send(line);
        },
        close: () => {
          socket.close(1000);
          setTimeout(() => socket.terminate(), 1000).unref();
        },
      };
    },
  };
}

/** Options of `stdio_transport`. */
export interface StdioTransportOptions {
  /** The executable, e.g. `lich` (or `process.execPath` with a script in `args`). */
  command: string;
  /** Its arguments, e.g. `['serve', '--stdio']`. */
  args?: readonly string[];
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** What happens to the server's stderr (its logs): default `inherit`. */
  stderr?: 'inherit' | 'ignore' | ((text: string) => void);
  /** Called with the child once it is spawned (tests: to kill it). */
  on_spawn?: (child: ChildProcess) => void;
}

/**
 * Spawns a server (`lich serve --stdio`) and talks to it over its stdin and stdout. Each
 * reconnection spawns a new one (a new epoch). Closing the link ends its stdin, which stops it;
 * one still running 2 s later is killed.
 */
export function stdio_transport(options: StdioTransportOptions): ClientTransport {
  const description = [options.command, ...(options.args ?? [])].join(' ');
  return {
    description,
    connect: async (handlers) => {
      const { spawn } = await import('node:child_process');
      const sink = typeof options.stderr === 'function' ? options.stderr : undefined;
      const stderr: 'pipe' | 'inherit' | 'ignore' =
        sink !== undefined ? 'pipe' : options.stderr === 'ignore' ? 'ignore' : 'inherit';
      const child: ChildProcess = spawn(options.command, [...(options.args ?? [])], {
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        ...(options.env === undefined ? {} : { env: options.env as NodeJS.ProcessEnv }),
        stdio: ['pipe', 'pipe', stderr],
      });
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
      options.on_spawn?.(child);
      if (sink !== undefined) child.stderr?.setEncoding('utf8').on('data', sink);
      const link = stream_link(child.stdout!, child.stdin!, handlers, () => {
        child.stdin?.end();
        setTimeout(() => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        }, 2000).unref();
      });
      child.once('exit', (code: number | null, signal: NodeJS.Signals | null) =>
        link.gone(code ?? undefined, signal ?? 'exited'),
      );
      return link;
    },
  };
}

/** Options of `stream_transport`. */
export interface StreamTransportOptions {
  /** What the server writes (its stdout). */
  input: NodeJS.ReadableStream;
  /** What the server reads (its stdin). */
  output: NodeJS.WritableStream;
}

/**
 * A link over an existing pair of streams (a server in the same process, a pipe made elsewhere).
 * It can be connected once: a reconnection fails.
 */
export function stream_transport(options: StreamTransportOptions): ClientTransport {
  let used = false;
  return {
    description: 'streams',
    connect: async (handlers) => {
      if (used) throw new Error('a stream transport cannot reconnect');
      used = true;
      const link = stream_link(options.input, options.output, handlers, () => options.output.end());
      options.input.once('end', () => link.gone(undefined, 'the stream ended'));
      options.input.once('close', () => link.gone(undefined, 'the stream closed'));
      return link;
    },
  };
}

function stream_link(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  handlers: TransportHandlers,
  end: () => void,
): TransportLink & { gone(code: number | undefined, reason: string): void } {
  // the server's messages can be large (a long history): no limit that a client could not read
  const splitter = new LineSplitter(Number.MAX_SAFE_INTEGER);
  let open = true;
  input.on('data', (chunk: Buffer | string) => {
    for (const line of splitter.push(chunk)) if (line.kind === 'line') handlers.line(line.text);
  });
  output.on('error', () => undefined);
  return {
    send: (line) => {
      if (open) output.write(`${line}\n`);
    },
    close: () => {
      if (open) end();
    },
    gone: (code, reason) => {
      if (!open) return;
      open = false;
      handlers.closed({ ...(code === undefined ? {} : { code }), reason });
    },
  };
}
