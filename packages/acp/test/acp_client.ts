/**
 * The ACP SDK's own client side, for the tests: connected to `lich acp` in process (newline-
 * delimited JSON over paired byte streams) or to a spawned process's stdio.
 */
import * as acp from '@agentclientprotocol/sdk';

/** How the test client answers the agent's requests. */
export interface ClientBehaviour {
  /** Picks the answer to a permission request (default: the first `allow_once` option). */
  permission?: (request: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse>;
  /** Files the client holds (absolute path → text): offered through `fs/*` when set. */
  files?: Map<string, string>;
}

/** A connected test client. */
export interface TestClient {
  agent: acp.ClientContext;
  connection: acp.ClientConnection;
  /** Every `session/update` received, in order. */
  updates: acp.SessionNotification[];
  /** Every permission request received. */
  permission_requests: acp.RequestPermissionRequest[];
  /** Every `fs/*` request received. */
  fs_calls: { method: string; path: string; content?: string }[];
  /** The updates of one session, in order. */
  updates_of(session_id: string): acp.SessionUpdate[];
  /** Resolves once an update matching `test` arrived (checks those already here first). */
  wait_for_update(
    test: (update: acp.SessionUpdate) => boolean,
    timeout_ms?: number,
  ): Promise<acp.SessionUpdate>;
  initialize(capabilities?: acp.ClientCapabilities): Promise<acp.InitializeResponse>;
  close(): void;
}

/** Chooses the option of the first `kind` among those offered. */
export function choose(kind: acp.PermissionOptionKind) {
  return async (request: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> => {
    const option = request.options.find((entry) => entry.kind === kind);
    if (!option) return { outcome: { outcome: 'cancelled' } };
    return { outcome: { outcome: 'selected', optionId: option.optionId } };
  };
}

/** Connects the SDK's client to `stream` with `behaviour`. */
export function connect_client(stream: acp.Stream, behaviour: ClientBehaviour = {}): TestClient {
  const updates: acp.SessionNotification[] = [];
  const permission_requests: acp.RequestPermissionRequest[] = [];
  const fs_calls: TestClient['fs_calls'] = [];
  const waiting = new Set<() => void>();
  const app = acp
    .client({ name: 'lich-test-client' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
      for (const wake of waiting) wake();
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      permission_requests.push(params);
      return (behaviour.permission ?? choose('allow_once'))(params);
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      fs_calls.push({ method: 'read', path: params.path });
      const text = behaviour.files?.get(params.path);
      if (text === undefined) throw acp.RequestError.resourceNotFound(params.path);
      if (params.line == null && params.limit == null) return { content: text };
      const lines = text.split('\n');
      const first = (params.line ?? 1) - 1;
      const end = params.limit == null ? lines.length : first + params.limit;
      return { content: lines.slice(first, end).join('\n') };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      fs_calls.push({ method: 'write', path: params.path, content: params.content });
      behaviour.files?.set(params.path, params.content);
      return {};
    });
  const connection = app.connect(stream);
  const client: TestClient = {
    agent: connection.agent,
    connection,
    updates,
    permission_requests,
    fs_calls,
    updates_of: (session_id) =>
      updates.filter((entry) => entry.sessionId === session_id).map((entry) => entry.update),
    wait_for_update(test, timeout_ms = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = updates.find((entry) => test(entry.update));
          if (!found) return false;
          waiting.delete(wake);
          clearTimeout(timer);
          resolve(found.update);
          return true;
        };
        const wake = () => {
          check();
        };
        const timer = setTimeout(() => {
          waiting.delete(wake);
          reject(new Error('wait_for_update: no matching update in time'));
        }, timeout_ms);
        if (!check()) waiting.add(wake);
      });
    },
    initialize(capabilities) {
      const offered: acp.ClientCapabilities = capabilities ?? {
        fs: {
          readTextFile: behaviour.files !== undefined,
          writeTextFile: behaviour.files !== undefined,
        },
        terminal: false,
      };
      return connection.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: offered,
        clientInfo: { name: 'lich-test-client', version: '1.0.0' },
      });
    },
    close: () => connection.close(),
  };
  return client;
}

/** Two ends of an in-process ACP connection: newline-delimited JSON both ways. */
export function paired_streams(): {
  agent: { output: WritableStream<Uint8Array>; input: ReadableStream<Uint8Array> };
  client: acp.Stream;
} {
  const to_client = new TransformStream<Uint8Array, Uint8Array>();
  const to_agent = new TransformStream<Uint8Array, Uint8Array>();
  return {
    agent: { output: to_client.writable, input: to_agent.readable },
    client: acp.ndJsonStream(to_agent.writable, to_client.readable),
  };
}
