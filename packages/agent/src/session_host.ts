import { randomBytes } from 'node:crypto';
import { empty_usage, type Message } from '@lich/core';
import {
  before_last_run,
  conversation_of,
  is_valid_session_id,
  new_session_id,
  one_line,
  SessionStore,
  TITLE_LIMIT,
} from '@lich/session';
import type { Agent } from './agent.js';
import type { CommandRegistry } from './command_registry.js';
import { DEFAULT_COALESCE_MS } from './delta_coalescer.js';
import { host_command_context } from './host_commands.js';
import { HostStorage, summary_info } from './host_storage.js';
import { LiveSession } from './live_session.js';
import { PERMISSION_GATE_FIELD } from './permission_gate.js';
import { PermissionRequests } from './permission_requests.js';
import { SessionHostError } from './session_host_error.js';
import type { SessionHostOptions } from './session_host_options.js';
import type {
  ApprovalMode,
  CommandInfo,
  CommandResult,
  HostEvent,
  ModelInfo,
  PermissionOption,
  SessionHost,
  SessionInfo,
  SubscribeOptions,
  Subscription,
  ToolInfo,
  TurnTicket,
} from './session_host_types.js';
import { PERMISSION_OPTIONS } from './session_host_types.js';
import { session_permission_gate } from './session_permission_gate.js';
import { tool_allowed } from './tool_allowlist.js';

export type { SessionHostOptions } from './session_host_options.js';

const APPROVAL_MODES: readonly ApprovalMode[] = ['default', 'auto_edit', 'yolo'];

function new_epoch(): string {
  return `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

function text_argument(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new SessionHostError('invalid_argument', `${name} must be a non-empty string`);
  }
  return value;
}

/**
 * The `SessionHost` over one Agent (see the interface's contract). Sessions are recorded through
 * `storage`, the JSONL files of the agent's `session_dir` by default.
 */
class Host implements SessionHost {
  readonly epoch: string;
  readonly #agent: Agent;
  readonly #storage: HostStorage;
  readonly #options: SessionHostOptions;
  readonly #sessions = new Map<string, LiveSession>();
  /** Loads in progress, so two loads of one session share one open. */
  readonly #loading = new Map<string, Promise<LiveSession>>();
  readonly #requests = new PermissionRequests();
  readonly #warn: (text: string) => void;
  readonly #now: () => Date;
  #shutting_down: Promise<void> | undefined;

  constructor(options: SessionHostOptions) {
    this.#options = options;
    this.#agent = options.agent;
    this.epoch = options.epoch ?? new_epoch();
    this.#storage = new HostStorage(
      options.storage === false
        ? null
        : (options.storage ?? new SessionStore({ session_dir: options.agent.config.session_dir })),
    );
    this.#warn =
      options.on_warning ?? ((text: string) => process.stderr.write(`lich: warning: ${text}\n`));
    this.#now = options.now ?? (() => new Date());
  }

  /** The agent's registry behind `commands` and `run_command`, for surfaces to add to. */
  get command_registry(): CommandRegistry {
    return this.#agent.commands;
  }

  get #default_mode(): ApprovalMode {
    return this.#options.approval_mode ?? this.#agent.config.permissions.mode ?? 'default';
  }

  /** Loads the agent's plugins, so their slash commands are listed; a failure is a warning here
   * (the run reports it). */
  async #plugins_ready(): Promise<void> {
    await this.#agent.prepare_plugins().catch((error: unknown) => {
      this.#warn(`plugins: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  #check_open(): void {
    if (this.#shutting_down !== undefined) {
      throw new SessionHostError('shutting_down', 'the session host is shutting down');
    }
  }

  #live(session: LiveSessionParts): LiveSession {
    const live = new LiveSession({
      ...session,
      epoch: this.epoch,
      agent: this.#agent,
      ...(this.#options.ring_events === undefined
        ? {}
        : { ring_events: this.#options.ring_events }),
      ...(this.#options.ring_bytes === undefined ? {} : { ring_bytes: this.#options.ring_bytes }),
      coalesce_ms: this.#options.coalesce_ms ?? DEFAULT_COALESCE_MS,
      tool_context: (live, turn_id) => ({
        [PERMISSION_GATE_FIELD]: session_permission_gate({
          policy: this.#agent.permissions,
          mode: () => live.approval_mode,
          approver: () => this.#requests.approver_for(live, turn_id, this.#options.approver),
          remembered: this.#agent.remembered_answers(live.handle),
          handle: live.handle,
          on_warning: this.#warn,
        }),
      }),
      ...(this.#options.history_limit === undefined
        ? {}
        : { history_limit: this.#options.history_limit }),
      now: this.#now,
      on_warning: this.#warn,
    });
    this.#sessions.set(live.id, live);
    live.touch();
    return live;
  }

  async create(
    options: { title?: string; approval_mode?: ApprovalMode } = {},
  ): Promise<SessionInfo> {
    this.#check_open();
    const approval_mode = options.approval_mode ?? this.#default_mode;
    if (!APPROVAL_MODES.includes(approval_mode)) {
      throw new SessionHostError('invalid_argument', `unknown approval mode '${approval_mode}'`);
    }
    const created = this.#now();
    await this.#plugins_ready();
    const handle = await this.#storage.create(
      {
        work_dir: this.#agent.config.work_dir,
        model: this.#agent.config.providers[0]?.model ?? 'unknown',
        lich_version: this.#options.lich_version ?? (await this.#agent.version()),
      },
      this.#warn,
    );
    const title = options.title === undefined ? '' : one_line(options.title, TITLE_LIMIT);
    const live = this.#live({
      id: handle?.id ?? new_session_id(created),
      handle,
      history: [],
      title,
      created: created.toISOString(),
      approval_mode,
      usage_total: empty_usage(),
    });
    if (title !== '' && handle !== null) this.#record_title(live, title);
    return live.info();
  }

  #record_title(live: LiveSession, title: string): void {
    live.handle?.append({ type: 'title', title }).catch((error: unknown) => {
      const message = `session ${live.id}: the title was not recorded: ${error instanceof Error ? error.message : error}`;
      this.#warn(message);
      live.publish('error', { message, code: 'session_write' });
    });
  }

  async load(session_id: string): Promise<SessionInfo> {
    return (await this.#session(session_id)).info();
  }

  /** The live session, loading it from storage when it is only on disk. */
  async #session(session_id: string): Promise<LiveSession> {
    const live = this.#sessions.get(session_id);
    if (live !== undefined) return live;
    this.#check_open();
    if (typeof session_id !== 'string' || !is_valid_session_id(session_id)) {
      throw new SessionHostError('unknown_session', `no session '${String(session_id)}'`);
    }
    let loading = this.#loading.get(session_id);
    if (loading === undefined) {
      loading = (async () => {
        const handle = await this.#storage.open(session_id);
        await this.#plugins_ready();
        const state = handle.state;
        const history = conversation_of(state);
        const first_user = history.find((message) => message.role === 'user');
        return this.#live({
          id: session_id,
          handle,
          history,
          title: one_line(state.title ?? first_user?.content ?? '', TITLE_LIMIT),
          created: state.start?.created ?? this.#now().toISOString(),
          approval_mode: this.#default_mode,
          usage_total: { ...state.usage_total },
          last_run: before_last_run(state),
        });
      })();
      this.#loading.set(session_id, loading);
      void loading.then(
        () => this.#loading.delete(session_id),
        () => this.#loading.delete(session_id),
      );
    }
    return loading;
  }

  async list(): Promise<SessionInfo[]> {
    const mode = this.#default_mode;
    const infos = new Map<string, SessionInfo>();
    for (const summary of await this.#storage.summaries()) {
      infos.set(summary.id, summary_info(summary, mode));
    }
    for (const live of this.#sessions.values()) infos.set(live.id, live.info());
    return [...infos.values()].sort(
      (a, b) => b.updated.localeCompare(a.updated) || b.session_id.localeCompare(a.session_id),
    );
  }

  async get(session_id: string): Promise<SessionInfo> {
    const live = this.#sessions.get(session_id);
    if (live !== undefined) return live.info();
    return summary_info(await this.#storage.summary(session_id), this.#default_mode);
  }

  async history(session_id: string): Promise<Message[]> {
    const live = this.#sessions.get(session_id);
    if (live !== undefined) return structuredClone(live.history);
    return this.#storage.read(session_id);
  }

  async close(session_id: string): Promise<void> {
    const live = this.#sessions.get(session_id);
    if (live === undefined) {
      await this.get(session_id); // unknown_session when it is not on disk either
      return;
    }
    await live.close();
    this.#requests.cancel_session(live);
    this.#sessions.delete(session_id);
  }

  async delete(session_id: string): Promise<void> {
    const live = this.#sessions.get(session_id);
    if (live !== undefined) await this.close(session_id);
    const deleted = await this.#storage.delete(session_id);
    if (!deleted && live === undefined) {
      throw new SessionHostError('unknown_session', `no session ${String(session_id)}`);
    }
  }

  async set_title(session_id: string, title: string): Promise<void> {
    if (typeof title !== 'string') {
      throw new SessionHostError('invalid_argument', 'title must be a string');
    }
    const live = await this.#session(session_id);
    live.title = one_line(title, TITLE_LIMIT);
    this.#record_title(live, live.title);
    live.touch();
  }

  async prompt(
    session_id: string,
    input: string,
    options: { client_request_id?: string } = {},
  ): Promise<TurnTicket> {
    text_argument(input, 'input');
    const live = await this.#session(session_id);
    this.#check_open();
    return live.enqueue(input, 'prompt', options.client_request_id);
  }

  async abort(session_id: string): Promise<boolean> {
    const live = this.#sessions.get(session_id);
    if (live === undefined) {
      await this.get(session_id);
      return false;
    }
    return live.abort();
  }

  async steer(session_id: string, text: string): Promise<void> {
    text_argument(text, 'text');
    const live = await this.#session(session_id);
    this.#check_open();
    live.steer(text);
  }

  async follow_up(session_id: string, text: string): Promise<TurnTicket> {
    text_argument(text, 'text');
    const live = await this.#session(session_id);
    this.#check_open();
    return live.enqueue(text, 'follow_up', undefined);
  }

  async subscribe(
    session_id: string,
    listener: (event: HostEvent) => void,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    if (typeof listener !== 'function') {
      throw new SessionHostError('invalid_argument', 'listener must be a function');
    }
    const live = await this.#session(session_id);
    return live.subscribe(listener, options);
  }

  async respond_permission(
    request_id: string,
    option: PermissionOption,
    options: { persist?: boolean } = {},
  ): Promise<boolean> {
    if (!PERMISSION_OPTIONS.includes(option)) {
      throw new SessionHostError(
        'invalid_argument',
        `option must be one of ${PERMISSION_OPTIONS.join(', ')}, got '${String(option)}'`,
      );
    }
    return this.#requests.respond(request_id, option, options.persist === true);
  }

  async set_approval_mode(session_id: string, mode: ApprovalMode): Promise<void> {
    if (!APPROVAL_MODES.includes(mode)) {
      throw new SessionHostError('invalid_argument', `unknown approval mode '${String(mode)}'`);
    }
    const live = await this.#session(session_id);
    live.approval_mode = mode;
    live.touch();
  }

  async set_model(session_id: string, model: string): Promise<void> {
    text_argument(model, 'model');
    const live = await this.#session(session_id);
    if (this.#agent.resolve_model(model) === null) {
      const known = this.models()
        .map((entry) => `${entry.provider}/${entry.model}`)
        .join(', ');
      throw new SessionHostError(
        'invalid_argument',
        `no configured provider serves '${model}'${known ? `; configured: ${known}` : ''}`,
      );
    }
    live.model_spec = model.trim();
    live.touch();
  }

  commands(_session_id?: string): CommandInfo[] {
    return this.#agent.commands.list();
  }

  async run_command(session_id: string, name: string, args = ''): Promise<CommandResult> {
    const live = await this.#session(session_id);
    return this.#agent.commands.run(
      host_command_context(this, this.#agent, live, this.#warn),
      name,
      args,
    );
  }

  models(): ModelInfo[] {
    return this.#agent.config.providers.map((entry, index) => ({
      provider: entry.kind,
      model: entry.model,
      default: index === 0,
    }));
  }

  tools(): ToolInfo[] {
    const enabled = this.#agent.config.tools_enabled;
    return this.#agent.registry
      .list()
      .filter((tool) => tool_allowed(tool.name, enabled))
      .map((tool) => ({ name: tool.name, description: tool.description }));
  }

  async idle(session_id: string): Promise<void> {
    const live = this.#sessions.get(session_id);
    if (live === undefined) {
      await this.get(session_id);
      return;
    }
    await live.idle();
  }

  shutdown(options: { deadline_ms?: number } = {}): Promise<void> {
    this.#shutting_down ??= (async () => {
      const sessions = [...this.#sessions.values()];
      for (const live of sessions) live.drop_queue();
      const deadline = options.deadline_ms ?? 10_000;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waited = Promise.all(sessions.map((live) => live.idle()));
      await Promise.race([
        waited,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, Math.max(0, deadline));
        }),
      ]);
      clearTimeout(timer);
      await Promise.all(sessions.map((live) => live.close()));
      this.#sessions.clear();
      await this.#agent.close();
    })();
    return this.#shutting_down;
  }
}

/** What `#live` needs beyond what the host supplies. */
type LiveSessionParts = Pick<
  ConstructorParameters<typeof LiveSession>[0],
  'id' | 'handle' | 'history' | 'title' | 'created' | 'approval_mode' | 'usage_total' | 'last_run'
>;

/** A `SessionHost` with the command registry it runs slash commands from. */
export interface LocalSessionHost extends SessionHost {
  /**
   * The agent's slash commands (`Agent.commands`: built-in and plugin ones); a surface may add its
   * own here. `commands()` lists them.
   */
  readonly command_registry: CommandRegistry;
}

/**
 * Builds the `SessionHost` every surface runs on, over one Agent.
 *
 * Contract: as `SessionHost`. Does no I/O until the first call; sessions are recorded through
 * `options.storage` (JSONL files by default); `shutdown` closes the agent.
 */
export function create_session_host(options: SessionHostOptions): LocalSessionHost {
  return new Host(options);
}
