import { LineSplitter } from './line_splitter.js';
import { ServeCore, type ServeCoreOptions } from './serve_core.js';

/** Options of `start_stdio_server`. */
export interface StdioServerOptions extends ServeCoreOptions {
  /** Where requests come from (default `process.stdin`). */
  input?: NodeJS.ReadableStream;
  /**
   * Where answers and events go (default `process.stdout`). Nothing else may write there: the
   * `lich serve --stdio` command sends every log line to stderr.
   */
  output?: NodeJS.WritableStream;
}

/** A running stdio server. */
export interface StdioServer {
  readonly core: ServeCore;
  /** Resolves when the input has ended (the parent went away) or `close` was called. */
  readonly closed: Promise<void>;
  /** Stops reading and ends the connection's subscriptions. Idempotent. */
  close(): void;
}

/**
 * Serves the protocol over a pair of streams, one JSON object per `\n`-terminated line each way.
 * The parent process owns the pipe, so the connection is authenticated from the start (no
 * token); it still begins with `initialize`.
 *
 * Contract: lines are split on `\n` only (never on U+2028/U+2029); a line longer than
 * `max_message_bytes` is answered `payload_too_large` without being held in memory; the end of the
 * input closes the connection (its subscriptions end); the host is left running (the caller shuts
 * it down).
 */
export function start_stdio_server(options: StdioServerOptions): StdioServer {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const core = new ServeCore(options);
  // the parent owns the pipe: the connection is authenticated, pictures fit
  const splitter = new LineSplitter(
    core.limits.max_authenticated_message_bytes ?? core.limits.max_message_bytes,
  );
  let resolve_closed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolve_closed = resolve;
  });
  const connection = core.connect(
    {
      send: (line) => {
        output.write(`${line}\n`);
      },
      close: () => undefined,
    },
    { authenticated: true, label: 'stdio' },
  );
  const on_data = (chunk: Buffer | string) => {
    for (const line of splitter.push(chunk)) connection.receive(line);
  };
  const finish = () => {
    input.off('data', on_data);
    input.off('end', on_end);
    input.off('close', on_end);
    connection.closed();
    resolve_closed();
  };
  const on_end = () => {
    for (const line of splitter.end()) connection.receive(line);
    finish();
  };
  input.on('data', on_data);
  input.on('end', on_end);
  input.on('close', on_end);
  input.resume();
  return {
    core,
    closed,
    close: () => {
      finish();
      input.pause();
    },
  };
}
