import type { SessionHost, SessionInfo } from '@lich/agent';
import type { Tool } from '@lich/tools';
import { acp_error, error_text, is_host_error } from './acp_error.js';
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
import { AcpSession, type TurnEnd } from './acp_session.js';
import { client_tools } from './client_tools.js';
import { replay_history } from './history_replay.js';
import { type HostFactory, HostPool } from './host_pool.js';
import { acp_mcp_catalog } from './mcp_servers.js';
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
import { text_block } from './update_mapping.js';
import { work_dir_of } from './work_dir_of.js';

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
 *
 * Each session's event flow to the editor is an `AcpSession`; host refusals become ACP errors
 * in `acp_error`.
 */
export class AcpAgent implements AcpAgentHandlers {
  readonly #peer: AcpClientPeer;
  readonly #options: AcpAgentOptions;
  readonly #pool: HostPool;
  readonly #sessions = new Map<string, AcpSession>();
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
      announced: (session_id, tool_call_id) =>
        this.#sessions.get(session_id)?.announced(tool_call_id) ?? Promise.resolve(),
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

  async #host(cwd: string, servers: readonly McpServer[] | undefined): Promise<SessionHost> {
    const work_dir = work_dir_of(cwd);
    const { catalog, warnings } = acp_mcp_catalog(servers ?? []);
    for (const warning of warnings) this.#log(warning);
    try {
      return await this.#pool.host_for(work_dir, catalog);
    } catch (error) {
      throw acp_errors.internal(`cannot start an agent in ${work_dir}: ${error_text(error)}`);
    }
  }

  #require(session_id: string): AcpSession {
    const session = this.#sessions.get(session_id);
    if (session === undefined) throw acp_errors.session_not_found(session_id);
    return session;
  }

  async #attach(host: SessionHost, info: SessionInfo): Promise<AcpSession> {
    const known = this.#sessions.get(info.session_id);
    if (known !== undefined) return known;
    const session = new AcpSession(host, info, {
      peer: this.#peer,
      log: (text) => this.#log(text),
    });
    this.#sessions.set(session.id, session);
    try {
      session.subscription = await host.subscribe(session.id, (event) => session.receive(event), {
        can_approve: true,
      });
    } catch (error) {
      this.#sessions.delete(session.id);
      throw acp_error(error, session.id);
    }
    return session;
  }

  /** Sends `update` after every update already queued for the session (none: nothing). */
  #enqueue_update(session_id: string, update: SessionUpdate): Promise<void> {
    return this.#sessions.get(session_id)?.enqueue(update) ?? Promise.resolve();
  }

  #session_state(session: AcpSession, info: SessionInfo): LoadSessionResponse {
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
    session.announce_commands();
    return { sessionId: session.id, ...this.#session_state(session, info) };
  }

  async #open(
    session_id: string,
    cwd: string,
    servers: readonly McpServer[] | undefined,
  ): Promise<{ session: AcpSession; info: SessionInfo }> {
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
    session.announce_commands();
    return this.#session_state(session, info);
  }

  async resume_session(
    params: { sessionId: string; cwd: string; mcpServers?: McpServer[] },
    _context: AcpRequestContext,
  ): Promise<LoadSessionResponse> {
    const { session, info } = await this.#open(params.sessionId, params.cwd, params.mcpServers);
    session.announce_commands();
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
    session.cancel_questions();
    await session.host.close(session.id).catch((error) => this.#log(error_text(error)));
    session.end_waiters();
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
      end = await session.turn_end(ticket.turn_id);
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
    session.cancel_questions();
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
      session.cancel_questions();
    }
    this.#sessions.clear();
    await this.#pool.shutdown();
  }
}
