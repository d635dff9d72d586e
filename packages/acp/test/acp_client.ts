/**
 * The ACP SDK's own client side, for the tests: connected to `lich acp` in process (newline-
 * delimited JSON over paired byte streams) or to a spawned process's stdio.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as acp from '@agentclientprotocol/sdk';

/** How the test client answers the agent's requests. */
export interface ClientBehaviour {
  /** Picks the answer to a permission request (default: the first `allow_once` option). */
  permission?: (request: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse>;
  /** Files the client holds (absolute path → text): offered through `fs/*` when set. */
  files?: Map<string, string>;
  /** Offer `terminal/*`, run as real child processes. */
  terminal?: boolean;
}

interface TestTerminal {
  child: ChildProcess;
  output: string;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
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
  /** Every `terminal/*` request received: the method and the command (for create). */
  terminal_calls: string[];
  /**
   * What arrived, in arrival order: `tool_call <id> <status>`, `tool_call_update <id> <status>`,
   * `fs/read <path>`, `fs/write <path>`, `terminal/create`.
   */
  wire: string[];
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
  const terminal_calls: string[] = [];
  const wire: string[] = [];
  const terminals = new Map<string, TestTerminal>();
  const terminal = (id: string): TestTerminal => {
    const found = terminals.get(id);
    if (!found) throw acp.RequestError.resourceNotFound(id);
    return found;
  };
  const waiting = new Set<() => void>();
  const app = acp
    .client({ name: 'lich-test-client' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
      const { update } = params;
      if (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') {
        wire.push(`${update.sessionUpdate} ${update.toolCallId} ${update.status ?? '-'}`);
      }
      for (const wake of waiting) wake();
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      permission_requests.push(params);
      return (behaviour.permission ?? choose('allow_once'))(params);
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      fs_calls.push({ method: 'read', path: params.path });
      wire.push(`fs/read ${params.path}`);
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
      wire.push(`fs/write ${params.path}`);
      behaviour.files?.set(params.path, params.content);
      return {};
    });
  app
    .onRequest(acp.methods.client.terminal.create, async ({ params }) => {
      terminal_calls.push(`create ${params.command} ${(params.args ?? []).join(' ')}`);
      wire.push('terminal/create');
      const child = spawn(params.command, params.args ?? [], {
        cwd: params.cwd ?? undefined,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const entry: TestTerminal = {
        child,
        output: '',
        exit: new Promise((resolve) =>
          child.once('close', (code, signal) => resolve({ exitCode: code, signal })),
        ),
      };
      const take = (chunk: Buffer) => {
        entry.output += chunk.toString('utf8');
      };
      child.stdout?.on('data', take);
      child.stderr?.on('data', take);
      const id = `term-${terminals.size + 1}`;
      terminals.set(id, entry);
      return { terminalId: id };
    })
    .onRequest(acp.methods.client.terminal.output, async ({ params }) => {
      terminal_calls.push('output');
      const entry = terminal(params.terminalId);
      const done = entry.child.exitCode !== null || entry.child.signalCode !== null;
      return {
        output: entry.output,
        truncated: false,
        exitStatus: done ? await entry.exit : null,
      };
    })
    .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
      terminal_calls.push('wait_for_exit');
      return terminal(params.terminalId).exit;
    })
    .onRequest(acp.methods.client.terminal.kill, async ({ params }) => {
      terminal_calls.push('kill');
      terminal(params.terminalId).child.kill('SIGKILL');
      return {};
    })
    .onRequest(acp.methods.client.terminal.release, async ({ params }) => {
      terminal_calls.push('release');
      const entry = terminal(params.terminalId);
      if (entry.child.exitCode === null && entry.child.signalCode === null)
        entry.child.kill('SIGKILL');
      terminals.delete(params.terminalId);
      return {};
    });
  const connection = app.connect(stream);
  const client: TestClient = {
    agent: connection.agent,
    connection,
    updates,
    permission_requests,
    fs_calls,
    terminal_calls,
    wire,
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
        terminal: behaviour.terminal === true,
      };
      return connection.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: offered,
        clientInfo: { name: 'lich-test-client', version: '1.0.0' },
      });
    },
    close: () => {
      connection.close();
      for (const entry of terminals.values()) entry.child.kill('SIGKILL');
    },
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
