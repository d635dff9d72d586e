import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type {
  HostEvent,
  HostEventPayloads,
  PermissionOption,
  SessionHost,
  SessionHostErrorCode,
  SessionInfo,
  Subscription,
} from '@lich/agent';
import type { Tool } from '@lich/tools';
import {
  ACP_PROTOCOL_VERSION,
  type AcpAgentHandlers,
  type AcpClientPeer,
  type AcpRequestContext,
  type AcpSessionInfo,
  acp_errors,
  type ClientCapabilities,
  type InitializeResponse,
  type LoadSessionResponse,
  type McpServer,
  type NewSessionResponse,
  type SessionUpdate,
} from './acp_sdk.js';
import { client_tools } from './client_tools.js';
import { replay_history } from './history_replay.js';
import { type HostFactory, HostPool } from './host_pool.js';
import { acp_mcp_catalog } from './mcp_servers.js';
import { permission_answer, permission_request } from './permissions.js';
import { DEFAULT_MAX_IMAGE_BYTES, prompt_images } from './prompt_images.js';
import { prompt_input, slash_command } from './prompt_input.js';
import {
  is_approval_mode,
  MODE_OPTION,
  MODEL_OPTION,
  session_config_options,
  session_modes,
} from './session_options.js';
import { acp_stop_reason } from './stop_reason.js';
import { SessionUpdateMapper, text_block } from './update_mapping.js';

/** How `lich acp` serves its sessions. */
export interface AcpAgentOptions {
  /** Builds the SessionHost of a (work dir, MCP servers) pair. */
  host_factory: HostFactory;
  /** The folder `session/list` lists when the client names none and no session is open. */
  default_work_dir: string;
  /** Run `terminal` in the editor's terminal when it offers one (default false). */
  client_terminal?: boolean;
  /** The version told in `initialize`. */
  version?: string;
  /** Hears what is worth logging (always to stderr: stdout carries ACP only). */
  on_log?: (text: string) => void;
  /** The largest picture a prompt takes, decoded; default `DEFAULT_MAX_IMAGE_BYTES` (20 MiB). */
  max_image_bytes?: number;
}

type TurnEnd = HostEventPayloads['turn.completed'];

/** Ended turns kept per session for a prompt that has not started waiting yet. */
const FINISHED_KEPT = 32;

/** One ACP session served by this connection. */
interface LiveSession {
  id: string;
  host: SessionHost;
  work_dir: string;
  mapper: SessionUpdateMapper;
  subscription: Subscription | undefined;
  /** Updates go out one after the other, in event order. */
  chain: Promise<void>;
  /** Turns that ended before anyone waited for them. */
  finished: Map<string, TurnEnd>;
  waiters: Map<string, (end: TurnEnd) => void>;
  /** Permission requests sent to the client and not yet answered. */
  asking: Map<string, AbortController>;
  /** Tool calls the editor was told of (their `tool_call` sent), and who waits for that. */
  announced: Map<string, { sent: boolean; wake: (() => void)[] }>;
}

/** How long a client request of a tool call waits for the call's announcement at most. */
const ANNOUNCE_WAIT_MS = 2_000;

function error_text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * True for a `SessionHostError`, by the same check as its `is_instance`. Written here so this
 * package loads nothing of `@lich/agent` at run time: the CLI runs it beside its own bundled copy
 * of the agent.
 */
function is_host_error(value: unknown): value is Error & { code: SessionHostErrorCode } {
  return (
    value instanceof Error &&
    value.name === 'SessionHostError' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

/** A host refusal as an ACP error. */
function acp_error(error: unknown, session_id?: string): Error {
  if (is_host_error(error)) {
    if (error.code === 'unknown_session') return acp_errors.session_not_found(session_id ?? '');
    if (error.code === 'invalid_argument') return acp_errors.invalid_params(error.message);
    return acp_errors.internal(error.message);
  }
  return acp_errors.internal(error_text(error));
}

/**
 * Lich as an ACP agent: maps `SessionHost`s onto the protocol for one client connection.
 *
 * Contract:
 * - `initialize` advertises `loadSession`, embedded-context prompts, HTTP and SSE MCP servers,
 *   and `session/list|resume|close`; the client's `fs`/`terminal` capabilities decide which
 *   tools go through the editor (`client_tools`);
 * - every session is served by the host of its (cwd, MCP servers) pair (`HostPool`); its events
 *   become `session/update`s in order (`SessionUpdateMapper`), and each `permission.request`
 *   becomes a `session/request_permission` whose answer (a cancelled one: `reject_once`) goes
 *   back to the host;
 * - `session/prompt` resolves when its turn ends: `end_turn`, `max_turn_requests`, `cancelled`,
 *   `refusal`; a turn that failed answers a JSON-RPC error with the provider's message;
 * - a prompt starting with `/name` where `name` is a host command runs the command and answers
 *   its output as the agent's message;
 * - `shutdown` shuts every host down; never rejects.
 */
export class AcpAgent implements AcpAgentHandlers {
  readonly #peer: AcpClientPeer;
  readonly #options: AcpAgentOptions;
  readonly #pool: HostPool;
  readonly #sessions = new Map<string, LiveSession>();
  #capabilities: ClientCapabilities = {};
  #tools: readonly Tool<never>[] = [];

  constructor(peer: AcpClientPeer, options: AcpAgentOptions) {
    this.#peer = peer;
    this.#options = options;
    this.#pool = new HostPool(options.host_factory, () => this.#tools);
  }

  #log(text: string): void {
    this.#options.on_log?.(text);
  }

  async initialize(params: {
    clientCapabilities?: ClientCapabilities;
  }): Promise<InitializeResponse> {
    this.#capabilities = params.clientCapabilities ?? {};
    this.#tools = client_tools({
      peer: this.#peer,
      capabilities: this.#capabilities,
      client_terminal: this.#options.client_terminal === true,
      announced: (session_id, tool_call_id) => this.#announced(session_id, tool_call_id),
      on_terminal: (session_id, tool_call_id, terminal_id) => {
        this.#sessions.get(session_id)?.mapper.note_terminal(tool_call_id);
        return this.#enqueue_update(session_id, {
          sessionUpdate: 'tool_call_update',
          toolCallId: tool_call_id,
          content: [{ type: 'terminal', terminalId: terminal_id }],
        });
      },
    });
    return {
      protocolVersion: ACP_PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
        sessionCapabilities: { list: {}, resume: {}, close: {} },
      },
      agentInfo: { name: 'lich', title: 'Lich', version: this.#options.version ?? '0.0.0' },
      authMethods: [],
    };
  }

  #work_dir(cwd: string): string {
    if (typeof cwd !== 'string' || !isAbsolute(cwd)) {
      throw acp_errors.invalid_params(`cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
    }
    // a folder that is not there is the editor's mistake, said to it (not an internal error)
    let is_folder: boolean;
    try {
      is_folder = statSync(cwd).isDirectory();
    } catch {
      throw acp_errors.invalid_params(`cwd ${cwd} does not exist`);
    }
    if (!is_folder) throw acp_errors.invalid_params(`cwd ${cwd} is not a folder`);
    return cwd;
  }

  async #host(cwd: string, servers: readonly McpServer[] | undefined): Promise<SessionHost> {
    const work_dir = this.#work_dir(cwd);
    const { catalog, warnings } = acp_mcp_catalog(servers ?? []);
    for (const warning of warnings) this.#log(warning);
    try {
      return await this.#pool.host_for(work_dir, catalog);
    } catch (error) {
      throw acp_errors.internal(`cannot start an agent in ${work_dir}: ${error_text(error)}`);
    }
  }

  #require(session_id: string): LiveSession {
    const session = this.#sessions.get(session_id);
    if (session === undefined) throw acp_errors.session_not_found(session_id);
    return session;
  }

  async #attach(host: SessionHost, info: SessionInfo): Promise<LiveSession> {
    const known = this.#sessions.get(info.session_id);
    if (known !== undefined) return known;
    const session: LiveSession = {
      id: info.session_id,
      host,
      work_dir: info.work_dir,
      mapper: new SessionUpdateMapper(info.work_dir, {
        mode: info.approval_mode,
        title: info.title,
      }),
      subscription: undefined,
      chain: Promise.resolve(),
      finished: new Map(),
      waiters: new Map(),
      asking: new Map(),
      announced: new Map(),
    };
    this.#sessions.set(session.id, session);
    try {
      session.subscription = await host.subscribe(
        session.id,
        (event) => {
          session.chain = session.chain
            .then(() => this.#on_event(session, event))
            .catch((error) => this.#log(`session ${session.id}: ${error_text(error)}`));
        },
        { can_approve: true },
      );
    } catch (error) {
      this.#sessions.delete(session.id);
      throw acp_error(error, session.id);
    }
    return session;
  }

  async #send(session: LiveSession, update: SessionUpdate): Promise<void> {
    try {
      await this.#peer.update({ sessionId: session.id, update });
    } catch (error) {
      this.#log(`session/update for ${session.id} not delivered: ${error_text(error)}`);
    }
    if (update.sessionUpdate === 'tool_call') this.#mark_announced(session, update.toolCallId);
    else if (
      update.sessionUpdate === 'tool_call_update' &&
      (update.status === 'completed' || update.status === 'failed')
    ) {
      session.announced.delete(update.toolCallId);
    }
  }

  #mark_announced(session: LiveSession, tool_call_id: string): void {
    const entry = session.announced.get(tool_call_id);
    if (entry === undefined) {
      session.announced.set(tool_call_id, { sent: true, wake: [] });
      return;
    }
    entry.sent = true;
    for (const wake of entry.wake.splice(0)) wake();
  }

  /** Resolves once `tool_call_id`'s `tool_call` went to the editor (or after a short wait). */
  #announced(session_id: string, tool_call_id: string): Promise<void> {
    const session = this.#sessions.get(session_id);
    if (session === undefined) return Promise.resolve();
    let entry = session.announced.get(tool_call_id);
    if (entry?.sent === true) return Promise.resolve();
    if (entry === undefined) {
      entry = { sent: false, wake: [] };
      session.announced.set(tool_call_id, entry);
    }
    const waiting = entry;
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ANNOUNCE_WAIT_MS);
      waiting.wake.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Sends `update` after every update already queued for the session. */
  #enqueue_update(session_id: string, update: SessionUpdate): Promise<void> {
    const session = this.#sessions.get(session_id);
    if (session === undefined) return Promise.resolve();
    const sent = session.chain.then(() => this.#send(session, update));
    session.chain = sent;
    return sent;
  }

  async #on_event(session: LiveSession, event: HostEvent): Promise<void> {
    for (const update of session.mapper.map(event)) await this.#send(session, update);
    switch (event.type) {
      case 'permission.request':
        // answered outside the chain: later events (an abort) must not wait for the person
        void this.#ask(session, event.payload);
        break;
      case 'permission.resolved':
        session.asking.get(event.payload.request_id)?.abort();
        break;
      case 'turn.completed': {
        const waiter = session.waiters.get(event.payload.turn_id);
        if (waiter !== undefined) {
          waiter(event.payload);
          break;
        }
        // a turn may end before its prompt waits for it; turns no prompt waits for (a host-started
        // follow-up) are kept only a while
        session.finished.set(event.payload.turn_id, event.payload);
        if (session.finished.size > FINISHED_KEPT) {
          const oldest = session.finished.keys().next().value;
          if (oldest !== undefined) session.finished.delete(oldest);
        }
        break;
      }
      case 'error':
        this.#log(`session ${session.id}: ${event.payload.message}`);
        break;
      default:
        break;
    }
  }

  async #ask(
    session: LiveSession,
    request: HostEventPayloads['permission.request'],
  ): Promise<void> {
    const controller = new AbortController();
    session.asking.set(request.request_id, controller);
    const display = session.mapper.tool_display(request.tool_call_id, request.tool, request.args);
    let answer: PermissionOption = 'reject_once';
    try {
      const response = await this.#peer.request_permission(
        permission_request(session.id, request, display, session.work_dir),
        controller.signal,
      );
      answer = permission_answer(response, request.options);
    } catch (error) {
      if (!controller.signal.aborted) {
        this.#log(`permission request ${request.request_id} failed: ${error_text(error)}`);
      }
    } finally {
      session.asking.delete(request.request_id);
    }
    await session.host
      .respond_permission(request.request_id, answer)
      .catch((error) => this.#log(`permission answer not taken: ${error_text(error)}`));
  }

  #turn_end(session: LiveSession, turn_id: string): Promise<TurnEnd> {
    const done = session.finished.get(turn_id);
    if (done !== undefined) {
      session.finished.delete(turn_id);
      return Promise.resolve(done);
    }
    return new Promise((resolve) => {
      session.waiters.set(turn_id, (end) => {
        session.waiters.delete(turn_id);
        resolve(end);
      });
    });
  }

  /** Tells the client the session's slash commands, once its id is known to the client. */
  #announce(session: LiveSession): void {
    const commands = session.host.commands(session.id).map((command) => ({
      name: command.name,
      description: command.description,
      input: command.argument_hint === undefined ? null : { hint: command.argument_hint },
    }));
    // a macrotask later, so the response that names the session goes out first
    const after_response = new Promise<void>((resolve) => setImmediate(resolve));
    const sent = session.chain
      .then(() => after_response)
      .then(() =>
        this.#send(session, {
          sessionUpdate: 'available_commands_update',
          availableCommands: commands,
        }),
      );
    session.chain = sent;
  }

  #session_state(session: LiveSession, info: SessionInfo): LoadSessionResponse {
    return {
      modes: session_modes(info),
      configOptions: session_config_options(info, session.host.models()),
    };
  }

  async new_session(params: {
    cwd: string;
    mcpServers?: McpServer[];
  }): Promise<NewSessionResponse> {
    const host = await this.#host(params.cwd, params.mcpServers);
    let info: SessionInfo;
    try {
      info = await host.create();
    } catch (error) {
      throw acp_error(error);
    }
    const session = await this.#attach(host, info);
    this.#announce(session);
    return { sessionId: session.id, ...this.#session_state(session, info) };
  }

  async #open(
    session_id: string,
    cwd: string,
    servers: readonly McpServer[] | undefined,
  ): Promise<{ session: LiveSession; info: SessionInfo }> {
    const live = this.#sessions.get(session_id);
    if (live !== undefined) {
      return {
        session: live,
        info: await live.host.get(session_id).catch((error) => {
          throw acp_error(error, session_id);
        }),
      };
    }
    const host = await this.#host(cwd, servers);
    let info: SessionInfo;
    try {
      info = await host.load(session_id);
    } catch (error) {
      throw acp_error(error, session_id);
    }
    return { session: await this.#attach(host, info), info };
  }

  async load_session(
    params: { sessionId: string; cwd: string; mcpServers: McpServer[] },
    _context: AcpRequestContext,
  ): Promise<LoadSessionResponse> {
    const { session, info } = await this.#open(params.sessionId, params.cwd, params.mcpServers);
    const history = await session.host.history(session.id).catch((error) => {
      throw acp_error(error, session.id);
    });
    for (const update of replay_history(history, session.work_dir)) {
      await this.#enqueue_update(session.id, update);
    }
    this.#announce(session);
    return this.#session_state(session, info);
  }

  async resume_session(
    params: { sessionId: string; cwd: string; mcpServers?: McpServer[] },
    _context: AcpRequestContext,
  ): Promise<LoadSessionResponse> {
    const { session, info } = await this.#open(params.sessionId, params.cwd, params.mcpServers);
    this.#announce(session);
    return this.#session_state(session, info);
  }

  async list_sessions(params: { cwd?: string | null }): Promise<{ sessions: AcpSessionInfo[] }> {
    const hosts =
      typeof params.cwd === 'string'
        ? [await this.#host(params.cwd, [])]
        : await this.#pool.hosts();
    if (hosts.length === 0) hosts.push(await this.#host(this.#options.default_work_dir, []));
    const seen = new Map<string, SessionInfo>();
    for (const host of hosts) {
      for (const info of await host.list().catch(() => [])) {
        if (typeof params.cwd === 'string' && info.work_dir !== params.cwd) continue;
        if (!seen.has(info.session_id)) seen.set(info.session_id, info);
      }
    }
    const sessions = [...seen.values()]
      .sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0))
      .map((info) => ({
        sessionId: info.session_id,
        cwd: info.work_dir,
        title: info.title === '' ? null : info.title,
        updatedAt: info.updated,
      }));
    return { sessions };
  }

  async close_session(params: { sessionId: string }): Promise<Record<string, never>> {
    const session = this.#sessions.get(params.sessionId);
    if (session === undefined) throw acp_errors.session_not_found(params.sessionId);
    this.#sessions.delete(session.id);
    session.subscription?.unsubscribe();
    for (const controller of session.asking.values()) controller.abort();
    await session.host.close(session.id).catch((error) => this.#log(error_text(error)));
    for (const waiter of session.waiters.values()) {
      waiter({
        turn_id: '',
        stop_reason: 'aborted',
        usage: { input_tokens: 0, output_tokens: 0 },
        final: null,
        turns_used: 0,
      });
    }
    return {};
  }

  async prompt(
    params: { sessionId: string; prompt: Parameters<typeof prompt_input>[0] },
    context: AcpRequestContext,
  ): Promise<{ stopReason: NonNullable<ReturnType<typeof acp_stop_reason>> }> {
    const session = this.#require(params.sessionId);
    let input = prompt_input(params.prompt);
    const images = prompt_images(
      params.prompt,
      this.#options.max_image_bytes ?? DEFAULT_MAX_IMAGE_BYTES,
    );
    if (input === '' && images.length === 0) return { stopReason: 'end_turn' };
    const command = images.length === 0 ? slash_command(input) : undefined;
    if (command && session.host.commands(session.id).some((known) => known.name === command.name)) {
      const result = await session.host
        .run_command(session.id, command.name, command.args === '' ? undefined : command.args)
        .catch((error) => {
          throw acp_error(error, session.id);
        });
      if (result.output !== '') {
        await this.#enqueue_update(session.id, {
          sessionUpdate: 'agent_message_chunk',
          content: text_block(result.output),
        });
      }
      // a custom command's prompt is this turn's prompt
      if (result.prompt === undefined) return { stopReason: 'end_turn' };
      input = result.prompt;
    }
    const ticket = await session.host
      .prompt(session.id, input, images.length === 0 ? {} : { images })
      .catch((error) => {
        throw acp_error(error, session.id);
      });
    const abort = () => {
      session.host.abort(session.id).catch(() => undefined);
    };
    context.signal.addEventListener('abort', abort, { once: true });
    let end: TurnEnd;
    try {
      end = await this.#turn_end(session, ticket.turn_id);
    } finally {
      context.signal.removeEventListener('abort', abort);
    }
    const stop = acp_stop_reason(end.stop_reason);
    if (stop === undefined) throw acp_errors.internal(end.error ?? 'the model call failed');
    return { stopReason: stop };
  }

  async cancel(params: { sessionId: string }): Promise<void> {
    const session = this.#sessions.get(params.sessionId);
    if (session === undefined) return;
    for (const controller of session.asking.values()) controller.abort();
    await session.host.abort(session.id).catch((error) => this.#log(error_text(error)));
  }

  async set_mode(params: { sessionId: string; modeId: string }): Promise<Record<string, never>> {
    const session = this.#require(params.sessionId);
    if (!is_approval_mode(params.modeId)) {
      throw acp_errors.invalid_params(
        `unknown mode '${params.modeId}': default, auto_edit, plan or yolo`,
      );
    }
    await session.host.set_approval_mode(session.id, params.modeId).catch((error) => {
      throw acp_error(error, session.id);
    });
    return {};
  }

  async set_config_option(params: {
    sessionId: string;
    configId: string;
    value: string | boolean;
  }): Promise<{ configOptions: ReturnType<typeof session_config_options> }> {
    const session = this.#require(params.sessionId);
    const value = params.value;
    if (typeof value !== 'string') {
      throw acp_errors.invalid_params(`option '${params.configId}' takes a value id`);
    }
    try {
      if (params.configId === MODEL_OPTION) {
        await session.host.set_model(session.id, value);
      } else if (params.configId === MODE_OPTION) {
        if (!is_approval_mode(value)) {
          throw acp_errors.invalid_params(
            `unknown mode '${value}': default, auto_edit, plan or yolo`,
          );
        }
        await session.host.set_approval_mode(session.id, value);
      } else {
        throw acp_errors.invalid_params(`unknown config option '${params.configId}'`);
      }
    } catch (error) {
      if (is_host_error(error)) throw acp_error(error, session.id);
      throw error;
    }
    const info = await session.host.get(session.id);
    return { configOptions: session_config_options(info, session.host.models()) };
  }

  /** Ends every session's subscription and shuts the hosts down. Never rejects. */
  async shutdown(): Promise<void> {
    for (const session of this.#sessions.values()) {
      session.subscription?.unsubscribe();
      for (const controller of session.asking.values()) controller.abort();
    }
    this.#sessions.clear();
    await this.#pool.shutdown();
  }
}
