import { AcpAgent, type AcpAgentOptions } from './acp_agent.js';
import { type AcpStream, node_stream, serve_acp_agent } from './acp_sdk.js';

/** A running ACP agent. */
export interface AcpServer {
  /** Resolves when the client disconnected and every host was shut down. */
  readonly done: Promise<void>;
  /** Closes the connection; `done` resolves once the hosts are shut down. */
  close(): void;
}

/**
 * Serves Lich as an ACP agent over `stream` (see `AcpAgent` for the mapping).
 *
 * Contract: writes nothing but ACP messages to the stream; when the client disconnects (or
 * `close`), every session is released and every host shut down before `done` resolves.
 */
export function serve_acp(stream: AcpStream, options: AcpAgentOptions): AcpServer {
  let agent: AcpAgent | undefined;
  const connection = serve_acp_agent(
    stream,
    (peer) => {
      agent = new AcpAgent(peer, options);
      return agent;
    },
    { name: 'lich' },
  );
  const done = connection.closed
    .catch((error) =>
      options.on_log?.(`connection closed: ${error instanceof Error ? error.message : error}`),
    )
    .then(() => agent?.shutdown());
  return { done: done.then(() => undefined), close: () => connection.close() };
}

/**
 * `lich acp`: serves ACP over the process's stdin and stdout (newline-delimited JSON-RPC).
 * Anything that would print to stdout through `console` goes to stderr instead, so stdout
 * carries ACP only.
 */
export function serve_acp_stdio(
  options: AcpAgentOptions & {
    stdin?: NodeJS.ReadableStream;
    stdout?: NodeJS.WritableStream;
  },
): AcpServer {
  const to_stderr = (...values: unknown[]) => console.error(...values);
  console.log = to_stderr;
  console.info = to_stderr;
  console.debug = to_stderr;
  const stream = node_stream(options.stdin ?? process.stdin, options.stdout ?? process.stdout);
  return serve_acp(stream, options);
}
