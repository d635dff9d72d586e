/**
 * One life of a server: an SDK client on one transport, what went wrong on it, and its end.
 * A restart makes a new session; the connection keeps only the current one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, ProtocolError } from '@modelcontextprotocol/client';
import { exit_text } from './transport.js';

/** How long closing waits for an HTTP server to end its session. */
const TERMINATE_WAIT_MS = 1_000;

/** A client and its transport, with the diagnostics gathered while it lived. */
export class McpSession {
  readonly client: Client;
  /** The transport closed (or is closing); the session is of no further use. */
  closed = false;
  /** A tools/list_changed came before the first listing finished. */
  list_dirty = false;
  /** Lines on stdout that were JSON but not JSON-RPC. */
  junk_lines = 0;
  /** The last transport-level error the SDK reported (already redacted). */
  last_transport_error: string | undefined;
  /** The HTTP status of the last refused request (an HTTP server), e.g. 404. */
  http_status: { status: number; text: string } | undefined;
  #probing = false;

  constructor(client: Client) {
    this.client = client;
  }

  /** The process id of a stdio server's child, while it runs. */
  get pid(): number | undefined {
    const transport = this.client.transport;
    if (transport === undefined || !('pid' in transport)) return undefined;
    return (transport as { pid: number | null }).pid ?? undefined;
  }

  /** The transport it runs on (kept: the client forgets it once it closed). */
  transport: unknown;

  /** How a stdio server's process ended (`exit code 3`, `killed by SIGKILL`), once it has. */
  get exit(): string | undefined {
    return exit_text(this.transport ?? this.client.transport);
  }

  /** `; <transport error>; it wrote N line(s)…` for an error message, or empty. */
  inline_context(): string {
    let text = '';
    if (this.last_transport_error !== undefined) text += `; ${this.last_transport_error}`;
    if (this.junk_lines > 0) {
      text += `; it wrote ${this.junk_lines} line(s) to stdout that are not JSON-RPC`;
    }
    return text;
  }

  /**
   * Asks the server for a `ping`. Resolves undefined when it answers (an error answer too: it is
   * alive), else the reason it could not be reached. While one probe runs, further calls resolve
   * undefined at once, so a burst of transport errors sends one ping. Never rejects.
   */
  async probe(timeout_ms: number): Promise<string | undefined> {
    if (this.#probing || this.closed) return undefined;
    this.#probing = true;
    try {
      await this.client.ping({ timeout: timeout_ms });
      return undefined;
    } catch (error) {
      if (error instanceof ProtocolError) return undefined;
      return describe_error(error);
    } finally {
      this.#probing = false;
    }
  }

  /**
   * Ends the session. `forceful` (a server that failed us): a child gets SIGTERM at once instead
   * of the SDK's graceful 2 s on closed stdin. Otherwise an HTTP server is asked to end its
   * session first (waiting at most 1 s). Never throws.
   */
  async dispose(forceful: boolean): Promise<void> {
    this.closed = true;
    const transport = this.client.transport;
    const pid = this.pid;
    if (forceful && pid !== undefined) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    if (!forceful && transport !== undefined && 'terminateSession' in transport) {
      // biome-ignore lint/style/useNamingConvention: the MCP SDK's name
      const terminate = (transport as { terminateSession(): Promise<void> }).terminateSession();
      await Promise.race([terminate.catch(() => {}), sleep(TERMINATE_WAIT_MS)]);
    }
    await this.client.close().catch(() => {});
  }
}

/**
 * An error's message with what its causes add: the first system error code
 * (`fetch failed (ECONNREFUSED)`), else the first cause's message (`fetch failed (bad port)`).
 */
export function describe_error(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && cause !== null && typeof cause === 'object'; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return `${error.message} (${code})`;
    cause = (cause as { cause?: unknown }).cause;
  }
  return error.cause instanceof Error && error.cause.message !== ''
    ? `${error.message} (${error.cause.message})`
    : error.message;
}
