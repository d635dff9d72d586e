/**
 * The methods of the Lich serve protocol: what each takes and answers. Types and constants only,
 * no imports beyond the protocol's own files.
 */
import type {
  EventParams,
  EventType,
  WireApprovalMode,
  WireCommandInfo,
  WireMessage,
  WireModelInfo,
  WirePermissionOption,
  WirePromptImage,
  WireRewindConflictChoice,
  WireRewindOutcome,
  WireRewindPoint,
  WireRewindScope,
  WireSessionInfo,
  WireToolInfo,
} from './protocol_types.js';

/** The protocol version this package speaks. `initialize` refuses any other. */
export const PROTOCOL_VERSION = 1;

/** Names a session. */
interface SessionParams {
  session_id: string;
}

/** Who is connecting, for the server's logs. */
export interface ClientInfo {
  name: string;
  version?: string;
}

/** The bounds a server enforces, as `initialize` reports them. */
export interface ServerLimits {
  /** The longest message (one line, in bytes) the server reads; longer ones are refused. */
  max_message_bytes: number;
  /** Requests one connection may have unanswered at once; more are refused `rate_limited`. */
  max_pending_requests: number;
  /** How many events per session the server holds for replay (`events.subscribe.after_seq`). */
  replay_events?: number;
  /**
   * The largest picture `prompt.submit` takes, in bytes decoded. The whole message, base64 and
   * all, must also fit the connection's message limit (`max_authenticated_message_bytes` once a
   * token was shown on the upgrade or over stdio, else `max_message_bytes`).
   */
  max_image_bytes?: number;
  /**
   * The longest message of a connection authenticated before it speaks (an `Authorization`
   * header on the upgrade, or stdio): room for a picture in base64. A connection that shows its
   * token in `initialize` keeps `max_message_bytes`, so no peer without a token can make the
   * server hold more than that.
   */
  max_authenticated_message_bytes?: number;
}

/** `initialize`: the first message of a connection. */
export interface InitializeParams {
  protocol_version: number;
  client_info: ClientInfo;
  /** The server's token, when the transport needs one and it was not sent as a header. */
  token?: string;
}

/** What `initialize` answers. */
export interface InitializeResult {
  server_info: { name: string; version: string };
  protocol_version: number;
  /** One id per server process: another epoch after a reconnect means the server restarted. */
  epoch: string;
  methods: readonly MethodName[];
  events: readonly EventType[];
  limits: ServerLimits;
}

/** `prompt.submit` and `run.follow_up` answer with the turn they started or queued. */
export interface TurnTicketResult {
  turn_id: string;
  /** True when the session was busy and the turn waits in its queue. */
  queued: boolean;
}

/** Every method: its params and its result. */
export interface MethodMap {
  initialize: { params: InitializeParams; result: InitializeResult };
  ping: { params: Record<string, never> | undefined; result: Record<string, never> };
  'session.new': {
    params: { title?: string; approval_mode?: WireApprovalMode } | undefined;
    result: WireSessionInfo;
  };
  'session.list': {
    params: Record<string, never> | undefined;
    result: { sessions: WireSessionInfo[] };
  };
  'session.get': { params: SessionParams; result: WireSessionInfo };
  'session.history': { params: SessionParams; result: { messages: WireMessage[] } };
  'session.load': { params: SessionParams; result: WireSessionInfo };
  'session.close': { params: SessionParams; result: Record<string, never> };
  'session.delete': { params: SessionParams; result: Record<string, never> };
  'session.set_title': { params: SessionParams & { title: string }; result: Record<string, never> };
  'session.set_model': { params: SessionParams & { model: string }; result: Record<string, never> };
  'session.set_approval_mode': {
    params: SessionParams & { approval_mode: WireApprovalMode };
    result: Record<string, never>;
  };
  'session.rewind_points': { params: SessionParams; result: { points: WireRewindPoint[] } };
  'session.rewind': {
    params: SessionParams & {
      /** The prompt to go back to (`WireRewindPoint.prompt`); absent with `redo`. */
      prompt?: number;
      /** Undo the session's last rewind. */
      redo?: boolean;
      /** Default `all`. */
      scope?: WireRewindScope;
      dry_run?: boolean;
      /** Default `stop`: a file changed by someone else stops the rewind. */
      on_conflict?: WireRewindConflictChoice;
    };
    result: WireRewindOutcome;
  };
  'prompt.submit': {
    params: SessionParams & {
      /** The prompt; may be empty (or absent) when `images` holds a picture. */
      text: string;
      /**
       * Pictures sent with the text (a screenshot): the user message is then the text and the
       * pictures. Each must be a PNG, JPEG, GIF or WebP picture of the declared `media_type`, at
       * most `limits.max_image_bytes` decoded; else the prompt is refused `invalid_params`.
       */
      images?: WirePromptImage[];
      /**
       * The client's id for this prompt. The same id sent again (a retry after a reconnect)
       * answers the first ticket instead of starting a second turn.
       */
      client_request_id?: string;
      /** `false`: refuse with `session_busy` rather than queue when a run is in flight. */
      queue?: boolean;
      /** Attach the files the text names as `@path`, read through `read_file`. */
      attach_mentions?: boolean;
    };
    result: TurnTicketResult;
  };
  'run.abort': { params: SessionParams; result: { aborted: boolean } };
  /** Aborts the run and takes back what was queued behind it (its texts, oldest first). */
  'run.interrupt': {
    params: SessionParams;
    /** `queued_images[i]`: the pictures sent with `queued[i]` (none for most). */
    result: { aborted: boolean; queued: string[]; queued_images: WirePromptImage[][] };
  };
  'run.steer': { params: SessionParams & { text: string }; result: Record<string, never> };
  'run.follow_up': {
    params: SessionParams & { text: string; attach_mentions?: boolean };
    result: TurnTicketResult;
  };
  'events.subscribe': {
    params: SessionParams & {
      /** Replay the held events after this seq first. Absent: live only, from the next event. */
      after_seq?: number;
      /** The epoch the client saw last; another one means a restart, answered `truncated`. */
      epoch?: string;
      /** This connection answers permission requests (default true). */
      can_approve?: boolean;
    };
    result: {
      /** How many held events were sent (as `event` notifications) before this answer. */
      replayed: number;
      /** The events asked for are gone (or from another epoch): refetch `session.history`. */
      truncated: boolean;
      epoch: string;
    };
  };
  'events.unsubscribe': { params: SessionParams; result: { unsubscribed: boolean } };
  'permission.respond': {
    params: {
      request_id: string;
      option: WirePermissionOption;
      /** With `allow_always`: also write the rule to the project config. */
      persist?: boolean;
      /** With a rejection: words for the model, passed with the refusal. */
      note?: string;
    };
    /** False when the request is unknown or was already answered. */
    result: { accepted: boolean };
  };
  'commands.list': {
    params: { session_id?: string } | undefined;
    result: { commands: WireCommandInfo[] };
  };
  'command.run': {
    params: SessionParams & { name: string; args?: string };
    /**
     * `prompt`: a custom command's filled-in template, for the client to send as the prompt;
     * `model`: the model that prompt's turn runs on (the host applies it when the prompt comes).
     */
    result: { ok: boolean; output: string; prompt?: string; model?: string };
  };
  'models.list': { params: Record<string, never> | undefined; result: { models: WireModelInfo[] } };
  'tools.list': { params: Record<string, never> | undefined; result: { tools: WireToolInfo[] } };
}

/** A method name. */
export type MethodName = keyof MethodMap;

/** The params of a method. */
export type MethodParams<M extends MethodName> = MethodMap[M]['params'];

/** The result of a method. */
export type MethodResult<M extends MethodName> = MethodMap[M]['result'];

/** Every method, in the order `initialize` lists them. */
export const METHOD_NAMES: readonly MethodName[] = [
  'initialize',
  'ping',
  'session.new',
  'session.list',
  'session.get',
  'session.history',
  'session.load',
  'session.close',
  'session.delete',
  'session.set_title',
  'session.set_model',
  'session.set_approval_mode',
  'session.rewind_points',
  'session.rewind',
  'prompt.submit',
  'run.abort',
  'run.interrupt',
  'run.steer',
  'run.follow_up',
  'events.subscribe',
  'events.unsubscribe',
  'permission.respond',
  'commands.list',
  'command.run',
  'models.list',
  'tools.list',
];

/** Every event type, in the order `initialize` lists them. */
export const EVENT_TYPES: readonly EventType[] = [
  'session.info',
  'turn.started',
  'turn.completed',
  'message.delta',
  'message.completed',
  'reasoning.delta',
  'message.steered',
  'tool.start',
  'tool.running',
  'tool.end',
  'permission.request',
  'permission.resolved',
  'usage.update',
  'provider.failover',
  'budget.notice',
  'compaction',
  'checkpoint.created',
  'session.rewound',
  'todo.updated',
  'plan.proposed',
  'subagent.started',
  'subagent.activity',
  'subagent.completed',
  'error',
];

/** Every rewind scope. */
export const REWIND_SCOPES: readonly WireRewindScope[] = ['all', 'files', 'conversation'];

/** Every answer to a rewind's conflicts. */
export const REWIND_CONFLICT_CHOICES: readonly WireRewindConflictChoice[] = [
  'stop',
  'overwrite',
  'keep',
];

/** Every permission answer, in the order a client offers them. */
export const PERMISSION_OPTIONS: readonly WirePermissionOption[] = [
  'allow_once',
  'allow_always',
  'reject_once',
  'reject_always',
];

/** Every approval mode. */
export const APPROVAL_MODES: readonly WireApprovalMode[] = ['default', 'auto_edit', 'plan', 'yolo'];

/** The notifications a server sends: only `event`. */
export interface NotificationMap {
  event: EventParams;
}

/** A JSON-RPC id. */
export type RpcId = string | number;

/** A request from the client. */
export interface RpcRequest<M extends MethodName = MethodName> {
  jsonrpc: '2.0';
  id: RpcId;
  method: M;
  params?: MethodParams<M>;
}

/** A notification from the server. */
export interface RpcNotification {
  jsonrpc: '2.0';
  method: 'event';
  params: EventParams;
}

/** The error object of a failed request. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** An answer to a request; `id` is null when the request could not be read. */
export type RpcResponse =
  | { jsonrpc: '2.0'; id: RpcId; result: unknown }
  | { jsonrpc: '2.0'; id: RpcId | null; error: RpcErrorObject };

/** Any message a server sends. */
export type ServerMessage = RpcResponse | RpcNotification;
