/**
 * The one module that calls `@agentclientprotocol/sdk` (its stable v1 entry). The SDK changed
 * shape across 0.x, 1.x and 2.x, so every other file of this package talks to the narrow,
 * Lich-shaped interfaces below and imports the protocol's types from here; moving to another SDK
 * version touches this file only.
 */
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

export type {
  AgentCapabilities,
  AvailableCommand,
  ClientCapabilities,
  CloseSessionRequest,
  CloseSessionResponse,
  ContentBlock,
  CreateTerminalRequest,
  InitializeRequest,
  InitializeResponse,
  ListSessionsRequest,
  ListSessionsResponse,
  LoadSessionRequest,
  LoadSessionResponse,
  McpServer,
  NewSessionRequest,
  NewSessionResponse,
  PermissionOption as AcpPermissionOption,
  PlanEntry,
  PromptRequest,
  PromptResponse,
  ReadTextFileRequest,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ResumeSessionRequest,
  ResumeSessionResponse,
  SessionConfigOption,
  SessionInfo as AcpSessionInfo,
  SessionModeState,
  SessionNotification,
  SessionUpdate,
  SetSessionConfigOptionRequest,
  SetSessionConfigOptionResponse,
  SetSessionModeRequest,
  SetSessionModeResponse,
  StopReason,
  ToolCallContent,
  ToolCallLocation,
  ToolCallUpdate,
  ToolKind,
  WriteTextFileRequest,
} from '@agentclientprotocol/sdk';

import type {
  CancelNotification,
  CloseSessionRequest,
  CloseSessionResponse,
  CreateTerminalRequest,
  InitializeRequest,
  InitializeResponse,
  ListSessionsRequest,
  ListSessionsResponse,
  LoadSessionRequest,
  LoadSessionResponse,
  NewSessionRequest,
  NewSessionResponse,
  PromptRequest,
  PromptResponse,
  ReadTextFileRequest,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ResumeSessionRequest,
  ResumeSessionResponse,
  SessionNotification,
  SetSessionConfigOptionRequest,
  SetSessionConfigOptionResponse,
  SetSessionModeRequest,
  SetSessionModeResponse,
  WriteTextFileRequest,
} from '@agentclientprotocol/sdk';

/** The ACP protocol version this agent speaks. */
export const ACP_PROTOCOL_VERSION: number = acp.PROTOCOL_VERSION;

/** A message transport: JSON-RPC messages both ways (opaque outside this module). */
export interface AcpStream {
  readonly acp_stream: acp.Stream;
}

/** Newline-delimited JSON over a pair of Node streams (stdin/stdout of `lich acp`). */
export function node_stream(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): AcpStream {
  const writable = Writable.toWeb(output as Writable) as WritableStream<Uint8Array>;
  const readable = Readable.toWeb(input as Readable) as ReadableStream<Uint8Array>;
  return { acp_stream: acp.ndJsonStream(writable, readable) };
}

/** Newline-delimited JSON over a pair of web byte streams (in-process tests, other transports). */
export function byte_stream(
  output: WritableStream<Uint8Array>,
  input: ReadableStream<Uint8Array>,
): AcpStream {
  return { acp_stream: acp.ndJsonStream(output, input) };
}

/** Protocol errors, as JSON-RPC error responses. */
export const acp_errors = {
  session_not_found: (session_id: string): Error => acp.RequestError.sessionNotFound(session_id),
  invalid_params: (message: string): Error => acp.RequestError.invalidParams(undefined, message),
  internal: (message: string): Error => acp.RequestError.internalError(undefined, message),
};

/** A terminal running in the client (`terminal/*`). */
export interface ClientTerminal {
  readonly id: string;
  output(): Promise<{
    output: string;
    truncated: boolean;
    exit_code: number | null;
    signal: string | null;
    exited: boolean;
  }>;
  wait_for_exit(): Promise<{ exit_code: number | null; signal: string | null }>;
  kill(): Promise<void>;
  release(): Promise<void>;
}

/** What the agent asks of the client. Every method rejects when the client answers an error. */
export interface AcpClientPeer {
  /** Sends one `session/update` notification. */
  update(notification: SessionNotification): Promise<void>;
  /** `session/request_permission`; aborting `signal` asks the client to cancel it. */
  request_permission(
    params: RequestPermissionRequest,
    signal?: AbortSignal,
  ): Promise<RequestPermissionResponse>;
  /** `fs/read_text_file`: the editor's view of the file, unsaved changes included. */
  read_text_file(params: ReadTextFileRequest, signal?: AbortSignal): Promise<string>;
  /** `fs/write_text_file`. */
  write_text_file(params: WriteTextFileRequest, signal?: AbortSignal): Promise<void>;
  /** `terminal/create`. */
  create_terminal(params: CreateTerminalRequest, signal?: AbortSignal): Promise<ClientTerminal>;
}

/** What a request handler is given besides its params. */
export interface AcpRequestContext {
  /** Fires when the client cancels the request (`$/cancel_request`) or the connection closes. */
  signal: AbortSignal;
}

/** The agent side of ACP, in Lich's names. Handlers may throw `acp_errors.*` errors. */
export interface AcpAgentHandlers {
  initialize(params: InitializeRequest): Promise<InitializeResponse>;
  new_session(params: NewSessionRequest, context: AcpRequestContext): Promise<NewSessionResponse>;
  load_session(
    params: LoadSessionRequest,
    context: AcpRequestContext,
  ): Promise<LoadSessionResponse>;
  list_sessions(params: ListSessionsRequest): Promise<ListSessionsResponse>;
  resume_session(
    params: ResumeSessionRequest,
    context: AcpRequestContext,
  ): Promise<ResumeSessionResponse>;
  close_session(params: CloseSessionRequest): Promise<CloseSessionResponse>;
  prompt(params: PromptRequest, context: AcpRequestContext): Promise<PromptResponse>;
  cancel(params: CancelNotification): Promise<void>;
  set_mode(params: SetSessionModeRequest): Promise<SetSessionModeResponse>;
  set_config_option(params: SetSessionConfigOptionRequest): Promise<SetSessionConfigOptionResponse>;
}

/** A live ACP connection. */
export interface AcpAgentConnection {
  /** Resolves when the connection closes (the client went away, or `close`). */
  readonly closed: Promise<void>;
  close(): void;
}

function send_options(signal: AbortSignal | undefined): acp.SendRequestOptions | undefined {
  return signal === undefined ? undefined : { cancellationSignal: signal };
}

function wrap_terminal(handle: acp.TerminalHandle): ClientTerminal {
  return {
    id: handle.id,
    async output() {
      const response = await handle.currentOutput();
      const status = response.exitStatus ?? null;
      return {
        output: response.output,
        truncated: response.truncated,
        exit_code: status?.exitCode ?? null,
        signal: status?.signal ?? null,
        exited: status !== null,
      };
    },
    async wait_for_exit() {
      const response = await handle.waitForExit();
      return { exit_code: response.exitCode ?? null, signal: response.signal ?? null };
    },
    async kill() {
      await handle.kill();
    },
    async release() {
      await handle.release();
    },
  };
}

function client_peer(client: acp.AgentContext): AcpClientPeer {
  const { methods } = acp;
  return {
    async update(notification) {
      await client.notify(methods.client.session.update, notification);
    },
    request_permission(params, signal) {
      return client.request(methods.client.session.requestPermission, params, send_options(signal));
    },
    async read_text_file(params, signal) {
      const response = await client.request(
        methods.client.fs.readTextFile,
        params,
        send_options(signal),
      );
      return response.content;
    },
    async write_text_file(params, signal) {
      await client.request(methods.client.fs.writeTextFile, params, send_options(signal));
    },
    async create_terminal(params, signal) {
      return wrap_terminal(await client.createTerminal(params, send_options(signal)));
    },
  };
}

/**
 * Serves `handlers` as an ACP agent over `stream`. `make_handlers` receives the client peer once
 * the connection is open, before the first message is handled.
 *
 * Contract: requests other than `initialize` are refused until `initialize` was answered (the
 * SDK's rule); a handler that throws answers the request with a JSON-RPC error; the connection
 * writes nothing but JSON-RPC messages to the stream.
 */
export function serve_acp_agent(
  stream: AcpStream,
  make_handlers: (client: AcpClientPeer) => AcpAgentHandlers,
  options: { name?: string } = {},
): AcpAgentConnection {
  let handlers: AcpAgentHandlers | undefined;
  const ready = (): AcpAgentHandlers => {
    if (handlers === undefined) throw acp_errors.internal('the agent is not connected');
    return handlers;
  };
  const { agent: method } = acp.methods;
  const app = acp
    .agent({ name: options.name ?? 'lich' })
    .onConnect((connection) => {
      handlers = make_handlers(client_peer(connection.client));
    })
    .onRequest(method.initialize, ({ params }) => ready().initialize(params))
    .onRequest(method.session.new, ({ params, signal }) => ready().new_session(params, { signal }))
    .onRequest(method.session.load, ({ params, signal }) =>
      ready().load_session(params, { signal }),
    )
    .onRequest(method.session.list, ({ params }) => ready().list_sessions(params))
    .onRequest(method.session.resume, ({ params, signal }) =>
      ready().resume_session(params, { signal }),
    )
    .onRequest(method.session.close, ({ params }) => ready().close_session(params))
    .onRequest(method.session.prompt, ({ params, signal }) => ready().prompt(params, { signal }))
    .onRequest(method.session.setMode, ({ params }) => ready().set_mode(params))
    .onRequest(method.session.setConfigOption, ({ params }) => ready().set_config_option(params))
    .onNotification(method.session.cancel, ({ params }) => ready().cancel(params));
  const connection = app.connect(stream.acp_stream);
  return {
    closed: connection.closed,
    close: () => connection.close(),
  };
}
