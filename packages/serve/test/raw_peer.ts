import { request } from 'node:http';
import { WebSocket } from 'ws';

/** A message a test received, parsed. */
export type Received = {
  id?: number | string | null;
  method?: string;
  params?: {
    session_id: string;
    seq: number;
    epoch: string;
    type: string;
    payload: Record<string, unknown>;
  };
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: { name?: string; retry_after_ms?: number } };
};

/**
 * A bare WebSocket peer for hostile tests: sends whatever it is told, records every message and
 * the close code, and waits on what arrives (never on time).
 */
export class RawPeer {
  readonly socket: WebSocket;
  readonly messages: Received[] = [];
  close_code: number | undefined;
  readonly #waiters: (() => void)[] = [];
  readonly closed: Promise<number>;
  #next_id = 1;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()) as Received);
      this.#wake();
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', (code) => {
        this.close_code = code;
        this.#wake();
        resolve(code);
      });
    });
    socket.on('error', () => undefined);
  }

  /** Opens a peer; rejects with `HTTP <status>` when the upgrade is refused. */
  static open(url: string, headers: Record<string, string> = {}): Promise<RawPeer> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers, perMessageDeflate: false });
      socket.once('open', () => resolve(new RawPeer(socket)));
      socket.once('unexpected-response', (_request, response) => {
        socket.on('error', () => undefined);
        reject(new Error(`HTTP ${response.statusCode}`));
        response.resume();
        socket.terminate();
      });
      socket.once('error', reject);
    });
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  /** Sends text as it is. */
  send_text(text: string): void {
    this.socket.send(text);
  }

  /** Sends a request and resolves with its answer. */
  async call(method: string, params?: unknown): Promise<Received> {
    const id = this.#next_id++;
    this.send_text(
      JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
    );
    return this.wait((message) => message.id === id);
  }

  /** Resolves with the first message (already received or to come) that matches. */
  async wait(match: (message: Received) => boolean): Promise<Received> {
    for (;;) {
      const found = this.messages.find(match);
      if (found !== undefined) return found;
      if (this.close_code !== undefined)
        throw new Error(`closed (${this.close_code}) before a match`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Resolves once `check` holds of every message received so far. */
  async wait_for(check: (messages: readonly Received[]) => boolean): Promise<void> {
    for (;;) {
      if (check(this.messages)) return;
      if (this.close_code !== undefined) throw new Error(`closed (${this.close_code}) first`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** The `event` notifications received so far. */
  events(): NonNullable<Received['params']>[] {
    return this.messages
      .filter((message) => message.method === 'event')
      .map((message) => message.params!);
  }

  /** Waits until `count` events have arrived. */
  async wait_events(
    count: number,
    session_id?: string,
  ): Promise<NonNullable<Received['params']>[]> {
    for (;;) {
      const events = this.events().filter(
        (event) => session_id === undefined || event.session_id === session_id,
      );
      if (events.length >= count) return events;
      if (this.close_code !== undefined) throw new Error(`closed with ${events.length} events`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  close(): void {
    this.socket.close();
  }
}

/** One plain HTTP request to the server; resolves with status, headers and body. */
export function http_get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  host = '127.0.0.1',
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, method: 'GET', headers, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** Tries a WebSocket upgrade with these headers; resolves with the HTTP status of the refusal (101 when accepted). */
export function upgrade_status(url: string, headers: Record<string, string>): Promise<number> {
  return RawPeer.open(url, headers).then(
    (peer) => {
      peer.socket.terminate();
      return 101;
    },
    (error: Error) => Number(/HTTP (\d+)/.exec(error.message)?.[1] ?? 0),
  );
}
