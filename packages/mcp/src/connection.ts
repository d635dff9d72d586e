/**
 * One MCP server, kept usable: started on demand, its tools listed and followed, its calls mapped
 * to tool outputs, and brought back with backoff after it dies.
 */
import { setTimeout as wait_for } from 'node:timers/promises';
import { Client, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { backoff_ms } from './backoff.js';
import { DEFAULT_MAX_OUTPUT_CHARS, type McpCallOutput, map_call_result } from './call_result.js';
import { DEFAULT_MCP_TIMEOUT_MS, is_stdio_server, type McpServerConfig } from './catalog.js';
import { client_info } from './client_info.js';
import { LineTail } from './line_tail.js';
import { list_all_tools } from './list_tools.js';
import type { McpListedTool } from './listed_tool.js';
import { redact_secrets } from './redact.js';
import { describe_error, McpSession } from './session.js';
import { describe_start_error, http_status, LOST_CONNECTION } from './start_error.js';
import { build_transport } from './transport.js';

/** The longest a liveness ping may take. */
const PROBE_TIMEOUT_MS = 5_000;

/** Where a connection stands. `down`: it died or failed to start, and restarts on next use. */
export type McpServerState = 'idle' | 'starting' | 'ready' | 'down' | 'closed';

/** The outcome of `connect`: the server's tools, or why it is not available. */
export type McpConnectResult = { ok: true; tools: McpListedTool[] } | { ok: false; error: string };

export interface McpConnectionOptions {
  /** Where a relative `cwd` is resolved; the default cwd of a stdio server. */
  work_dir?: string;
  /** Told about things worth a line in a log: a skipped tool, a server that went down. */
  on_warning?: (message: string) => void;
  /** Called with the new list after the server's tools changed (list_changed, a restart). */
  on_tools_changed?: (tools: readonly McpListedTool[]) => void;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  /** Time limit of this call; the server's `timeout_ms` when absent. */
  timeout_ms?: number;
  /** Bound of the output in characters (100 000 by default). */
  max_output_chars?: number;
}

/**
 * A connection to one MCP server through the official SDK.
 *
 * Contract:
 * - `connect` and `call_tool` never throw; failures come back as `ok: false` with a message that
 *   names the server, carries the last lines of a child's stderr, and has secrets redacted;
 * - a server that dies fails the calls in flight at once (not at their timeout), is marked
 *   `down`, and is started again on its next use after a backoff that doubles with each failure
 *   in a row; a call is never replayed;
 * - a call's timeout or abort sends `notifications/cancelled` (through the SDK) and leaves the
 *   server running;
 * - `tools/list` is paginated and followed on `notifications/tools/list_changed`; a tool with a
 *   broken schema is left out with a warning.
 */
export class McpConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly #options: McpConnectionOptions;
  #state: McpServerState = 'idle';
  #session: McpSession | undefined;
  #starting: Promise<McpConnectResult> | undefined;
  #tools: McpListedTool[] = [];
  #failures = 0;
  #down_at = 0;
  #down_reason = '';
  /** The stderr block of the session that went down (empty when there was none). */
  #down_stderr = '';
  #secrets: string[] = [];
  readonly #stderr = new LineTail({ max_lines: 20 });
  readonly #warned = new Set<string>();
  #listing: Promise<void> | undefined;
  #list_again = false;

  constructor(name: string, config: McpServerConfig, options: McpConnectionOptions = {}) {
    this.name = name;
    this.config = config;
    this.#options = options;
  }

  /** Where the connection stands. */
  get state(): McpServerState {
    return this.#state;
  }

  /** The tools of the last successful listing. */
  get tools(): readonly McpListedTool[] {
    return this.#tools;
  }

  /** Time limit of initialize and of each call. */
  get timeout_ms(): number {
    return this.config.timeout_ms ?? DEFAULT_MCP_TIMEOUT_MS;
  }

  /** The process id of a running stdio server, else undefined. */
  get pid(): number | undefined {
    return this.#session?.pid;
  }

  /** The last lines the child wrote to stderr, redacted. */
  stderr_tail(): string {
    return this.#redact(this.#stderr.text());
  }

  /**
   * Starts the server (if it is not running) and lists its tools, within `timeout_ms`.
   * Concurrent callers share one start. Never throws.
   */
  connect(options: { signal?: AbortSignal } = {}): Promise<McpConnectResult> {
    if (this.#state === 'closed') {
      return Promise.resolve({ ok: false, error: `MCP server '${this.name}' is closed` });
    }
    if (this.#state === 'ready') return Promise.resolve({ ok: true, tools: this.#tools });
    this.#starting ??= this.#start(options.signal).finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /**
   * Calls one tool of the server. Starts or restarts the server first when needed.
   * Never throws; the result is the tool's output or a message the model can act on.
   */
  async call_tool(
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions = {},
  ): Promise<McpCallOutput> {
    const { signal } = options;
    const timeout_ms = options.timeout_ms ?? this.timeout_ms;
    if (signal?.aborted) return failure(this.#aborted_message(tool));
    if (this.#state !== 'ready') {
      const ready = await this.#ensure_ready(timeout_ms, signal);
      if (!ready.ok) return failure(ready.error);
    }
    const session = this.#session;
    if (session === undefined || this.#state !== 'ready') {
      return failure(`MCP server '${this.name}' is not available`);
    }
    try {
      const result = await session.client.callTool(
        { name: tool, arguments: args },
        { signal, timeout: timeout_ms },
      );
      this.#failures = 0;
      return map_call_result(result, options.max_output_chars ?? DEFAULT_MAX_OUTPUT_CHARS);
    } catch (error) {
      return failure(await this.#call_error(session, tool, error, timeout_ms, signal));
    }
  }

  /** Stops the server and refuses further calls. Idempotent; never throws. */
  async close(): Promise<void> {
    this.#state = 'closed';
    const session = this.#session;
    this.#session = undefined;
    if (session !== undefined) await this.#dispose(session, false);
  }

  async #start(signal: AbortSignal | undefined): Promise<McpConnectResult> {
    this.#state = 'starting';
    this.#stderr.clear();
    const built = build_transport(this.config, {
      work_dir: this.#options.work_dir ?? process.cwd(),
    });
    if (!built.ok) return this.#start_failed(`MCP server '${this.name}': ${built.error}`);
    this.#secrets = built.secrets;
    for (const variable of new Set(built.missing)) {
      this.#warn(`MCP server '${this.name}': \${${variable}} is not set; it was left empty`);
    }
    built.stderr?.on('data', (chunk: Buffer) => this.#stderr.push(chunk));
    const client = new Client(client_info(), { capabilities: {} });
    const session = new McpSession(client);
    session.transport = built.transport;
    client.onerror = (error) => this.#on_transport_error(session, error);
    client.onclose = () => this.#on_closed(session);
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      if (this.#session !== session) return;
      if (this.#state === 'starting') session.list_dirty = true;
      else this.#relist(session);
    });
    this.#session = session;
    try {
      await client.connect(built.transport, { timeout: this.timeout_ms, signal });
    } catch (error) {
      await this.#dispose(session, true);
      const message = describe_start_error({
        name: this.name,
        config: this.config,
        timeout_ms: this.timeout_ms,
        session,
        error,
        aborted: signal?.aborted === true,
        with_context: (text) => this.#with_context(text, session),
      });
      return this.#start_failed(this.#redact(message));
    }
    const listed = await this.#list_tools(session, signal);
    if (!listed.ok) {
      await this.#dispose(session, true);
      return this.#start_failed(listed.error);
    }
    if (session.closed || this.#session !== session) {
      return this.#start_failed(
        this.#with_context(
          `MCP server '${this.name}' closed the connection right after starting`,
          session,
        ),
      );
    }
    const changed = this.#tools.length > 0 && !same_tools(this.#tools, listed.tools);
    this.#tools = listed.tools;
    this.#state = 'ready';
    if (changed) this.#options.on_tools_changed?.(this.#tools);
    if (session.list_dirty) this.#relist(session);
    return { ok: true, tools: this.#tools };
  }

  #start_failed(error: string): McpConnectResult {
    if (this.#state !== 'closed') {
      this.#state = 'down';
      this.#session = undefined;
    }
    this.#failures++;
    this.#down_at = Date.now();
    this.#down_reason = error;
    this.#down_stderr = '';
    return { ok: false, error: this.#redact(error) };
  }

  async #ensure_ready(
    timeout_ms: number,
    signal: AbortSignal | undefined,
  ): Promise<{ ok: true } | { ok: false; error: string }> {
    if (this.#state === 'closed')
      return { ok: false, error: `MCP server '${this.name}' is closed` };
    if (this.#state === 'down') {
      const wait = this.#down_at + backoff_ms(this.#failures) - Date.now();
      if (wait > timeout_ms) {
        return {
          ok: false,
          error: this.#redact(
            `MCP server '${this.name}' is down (${this.#down_reason}); the next restart is in ${Math.ceil(wait / 1000)} s${this.#down_stderr}`,
          ),
        };
      }
      if (wait > 0 && !(await wait_for(wait, true, { signal }).catch(() => false))) {
        return {
          ok: false,
          error: `the call was aborted while MCP server '${this.name}' was down`,
        };
      }
    }
    const result = await this.connect({ signal });
    return result.ok ? { ok: true } : result;
  }

  async #list_tools(
    session: McpSession,
    signal?: AbortSignal,
  ): Promise<{ ok: true; tools: McpListedTool[] } | { ok: false; error: string }> {
    const listed = await list_all_tools(session.client, {
      server: this.name,
      timeout_ms: this.timeout_ms,
      signal,
      warn: (message) => this.#warn(message),
    });
    return listed.ok ? listed : { ok: false, error: this.#with_context(listed.error, session) };
  }

  /** Lists again after tools/list_changed; overlapping notifications coalesce into one more run. */
  #relist(session: McpSession): void {
    if (this.#listing !== undefined) {
      this.#list_again = true;
      return;
    }
    this.#listing = (async () => {
      do {
        this.#list_again = false;
        const listed = await this.#list_tools(session);
        if (this.#session !== session || this.#state !== 'ready') return;
        if (!listed.ok) {
          this.#warn(listed.error);
          return;
        }
        this.#tools = listed.tools;
        this.#options.on_tools_changed?.(this.#tools);
      } while (this.#list_again);
    })().finally(() => {
      this.#listing = undefined;
      // a notification that came for a newer session while an older one was listing
      const current = this.#session;
      if (this.#list_again && current !== undefined && this.#state === 'ready') {
        this.#list_again = false;
        this.#relist(current);
      }
    });
  }

  #on_transport_error(session: McpSession, error: Error): void {
    if (error.name === 'ZodError' || error.message.trimStart().startsWith('[')) {
      session.junk_lines++;
      this.#warn(
        `MCP server '${this.name}' writes JSON to stdout that is not JSON-RPC; it is ignored`,
      );
      return;
    }
    // a late answer to a call that already timed out is expected, not a fault of the server
    if (error.message.startsWith('Received a response for an unknown message ID')) return;
    session.last_transport_error = this.#redact(describe_error(error));
    session.http_status = http_status(error) ?? session.http_status;
    // over HTTP a dead server leaves calls waiting for a stream that never resumes: ask at once
    if (!is_stdio_server(this.config) && LOST_CONNECTION.test(session.last_transport_error)) {
      void this.#check_alive(session);
    }
  }

  /** Pings a session whose stream broke; one that cannot be reached is marked down and closed. */
  async #check_alive(session: McpSession): Promise<void> {
    if (this.#session !== session || this.#state !== 'ready') return;
    const reason = await session.probe(Math.min(this.timeout_ms, PROBE_TIMEOUT_MS));
    if (reason === undefined || this.#session !== session) return;
    this.#mark_down(session, `the server stopped answering: ${this.#redact(reason)}`);
    await session.dispose(true);
  }

  #on_closed(session: McpSession): void {
    const exit = session.exit;
    const what = is_stdio_server(this.config)
      ? `the process exited${exit === undefined ? '' : ` (${exit})`}`
      : 'the connection closed';
    this.#mark_down(session, what);
  }

  /** Marks the server down when `session` is its live session; later uses restart it. */
  #mark_down(session: McpSession, what: string): void {
    const was_current = this.#session === session && !session.closed;
    session.closed = true;
    if (!was_current || this.#state !== 'ready') return;
    this.#session = undefined;
    this.#state = 'down';
    this.#failures++;
    this.#down_at = Date.now();
    const context = session.inline_context();
    this.#down_reason =
      context !== '' && what.includes(context.slice(2)) ? what : `${what}${context}`;
    this.#down_stderr = this.#stderr_block();
    this.#warn(`MCP server '${this.name}' went down (${what}); it restarts on its next use`);
  }

  async #call_error(
    session: McpSession,
    tool: string,
    error: unknown,
    timeout_ms: number,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    if (signal?.aborted) return this.#aborted_message(tool);
    const label = `'${tool}' on MCP server '${this.name}'`;
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      return `${label} timed out after ${timeout_ms} ms; the server was sent a cancellation`;
    }
    if (error instanceof ProtocolError) {
      return this.#redact(`${label} failed: ${error.message}`);
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
      return this.#redact(`${label} returned an invalid result: ${error.message}`);
    }
    if (this.#state === 'closed') {
      return `MCP server '${this.name}' was closed during the call to '${tool}'`;
    }
    // the connection itself failed: the server is gone, or unreachable
    if (this.#session === session && !session.closed) {
      this.#mark_down(session, message_of(error));
      await this.#dispose(session, true);
    }
    const reason = this.#down_reason !== '' ? this.#down_reason : message_of(error);
    return this.#redact(
      `MCP server '${this.name}' went down during the call to '${tool}' (${reason}); the call was not retried, and the server restarts on its next use${this.#down_stderr}`,
    );
  }

  #aborted_message(tool: string): string {
    return `the call to '${tool}' on MCP server '${this.name}' was aborted; the server was sent a cancellation`;
  }

  /** Adds what is known about the session's end: transport error, junk output, stderr. */
  #with_context(message: string, session: McpSession): string {
    return this.#redact(`${message}${session.inline_context()}${this.#stderr_block()}`);
  }

  /** The last stderr lines as a block to append, or empty. */
  #stderr_block(): string {
    const stderr = this.#stderr.text().split('\n').slice(-5).join('\n').trim();
    return stderr === '' ? '' : `\nstderr (last lines):\n${stderr}`;
  }

  async #dispose(session: McpSession, forceful: boolean): Promise<void> {
    if (this.#session === session) this.#session = undefined;
    await session.dispose(forceful);
  }

  #warn(message: string): void {
    const text = this.#redact(message);
    if (this.#warned.has(text)) return;
    this.#warned.add(text);
    try {
      this.#options.on_warning?.(text);
    } catch {
      // a throwing listener must not break the connection
    }
  }

  #redact(text: string): string {
    return redact_secrets(text, this.#secrets);
  }
}

function failure(message: string): McpCallOutput {
  return { ok: false, output: message, error: message };
}

function message_of(error: unknown): string {
  return describe_error(error);
}

function same_tools(a: readonly McpListedTool[], b: readonly McpListedTool[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
