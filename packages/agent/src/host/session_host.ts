import { randomBytes } from 'node:crypto';
import { compare_text, empty_usage, type ImagePart, type Message } from '@lich/core';
import { new_session_id, one_line, TITLE_LIMIT } from '@lich/session';
import type { Agent } from '../agent.js';
import { rewind_points } from '../checkpoints/rewind_points.js';
import type { RewindOutcome, RewindPoint, RewindRequest } from '../checkpoints/rewind_types.js';
import { PermissionRequests } from '../permissions/permission_requests.js';
import { session_store_of } from '../session_store_of.js';
import type { CommandRegistry } from './command_registry.js';
import { approval_mode_argument, images_argument, text_argument } from './host_arguments.js';
import { host_models, host_tools } from './host_catalog.js';
import { host_command_context } from './host_commands.js';
import { rewind_live } from './host_rewind.js';
import { HostStorage, summary_info } from './host_storage.js';
import type { LiveSession } from './live_session.js';
import { LiveSessions } from './live_sessions.js';
import { attach_mentions_of } from './prompt_mentions.js';
import { SessionHostError } from './session_host_error.js';
import type { SessionHostOptions } from './session_host_options.js';
import type {
  ApprovalMode,
  CommandInfo,
  CommandResult,
  HostEvent,
  ModelInfo,
  PermissionOption,
  RunObserver,
  SessionHost,
  SessionInfo,
  SubscribeOptions,
  Subscription,
  ToolInfo,
  TurnTicket,
} from './session_host_types.js';
import { PERMISSION_OPTIONS } from './session_host_types.js';

export type { SessionHostOptions } from './session_host_options.js';

function new_epoch(): string {
  return `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
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
  readonly #sessions: LiveSessions;
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
        : (options.storage ?? session_store_of(options.agent.config)),
      options.scope === 'all' ? null : (options.scope?.work_dir ?? options.agent.config.work_dir),
    );
    this.#warn =
      options.on_warning ?? ((text: string) => process.stderr.write(`lich: warning: ${text}\n`));
    this.#now = options.now ?? (() => new Date());
    this.#sessions = new LiveSessions({
      epoch: this.epoch,
      agent: this.#agent,
      options,
      storage: this.#storage,
      requests: this.#requests,
      warn: this.#warn,
      now: this.#now,
      default_mode: () => this.#default_mode,
      check_open: () => this.#check_open(),
      plugins_ready: () => this.#plugins_ready(),
    });
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

  async create(
    options: { title?: string; approval_mode?: ApprovalMode } = {},
  ): Promise<SessionInfo> {
    this.#check_open();
    const approval_mode = approval_mode_argument(options.approval_mode ?? this.#default_mode);
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
    const live = this.#sessions.add({
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
  #session(session_id: string): Promise<LiveSession> {
    return this.#sessions.session(session_id);
  }

  async list(): Promise<SessionInfo[]> {
    const mode = this.#default_mode;
    const infos = new Map<string, SessionInfo>();
    for (const summary of await this.#storage.summaries()) {
      infos.set(summary.id, summary_info(summary, mode));
    }
    for (const live of this.#sessions.values()) infos.set(live.id, live.info());
    return [...infos.values()].sort(
      (a, b) => compare_text(b.updated, a.updated) || compare_text(b.session_id, a.session_id),
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
    options: {
      client_request_id?: string;
      attach_mentions?: boolean;
      budget_scopes?: { sender?: string; conversation?: string };
      images?: readonly ImagePart[];
      observer?: RunObserver;
    } = {},
  ): Promise<TurnTicket> {
    const images = images_argument(options.images);
    // a picture may come without a word (a photo with no caption)
    if (images.length === 0) text_argument(input, 'input');
    else if (typeof input !== 'string') text_argument(input, 'input');
    const live = await this.#session(session_id);
    this.#check_open();
    const model = this.#command_model(live, input);
    const { text, mentioned } = await attach_mentions_of(
      this.#agent,
      live,
      input,
      options.attach_mentions === true,
    );
    return live.enqueue(text, 'prompt', {
      client_request_id: options.client_request_id,
      budget_scopes: options.budget_scopes,
      images,
      mentioned,
      model,
      typed: input,
      observer: options.observer,
    });
  }

  async abort(session_id: string): Promise<boolean> {
    const live = this.#sessions.get(session_id);
    if (live === undefined) {
      await this.get(session_id);
      return false;
    }
    return live.abort();
  }

  async interrupt(
    session_id: string,
  ): Promise<{ aborted: boolean; queued: string[]; queued_images: ImagePart[][] }> {
    const live = this.#sessions.get(session_id);
    if (live === undefined) {
      await this.get(session_id);
      return { aborted: false, queued: [], queued_images: [] };
    }
    const taken = live.take_queued();
    return {
      aborted: live.abort(),
      queued: taken.map((entry) => entry.text),
      queued_images: taken.map((entry) => [...entry.images]),
    };
  }

  async steer(session_id: string, text: string): Promise<void> {
    text_argument(text, 'text');
    const live = await this.#session(session_id);
    this.#check_open();
    live.steer(text);
  }

  async follow_up(
    session_id: string,
    text: string,
    options: { attach_mentions?: boolean } = {},
  ): Promise<TurnTicket> {
    text_argument(text, 'text');
    const live = await this.#session(session_id);
    this.#check_open();
    const model = this.#command_model(live, text);
    const expanded = await attach_mentions_of(
      this.#agent,
      live,
      text,
      options.attach_mentions === true,
    );
    return live.enqueue(expanded.text, 'follow_up', {
      model,
      typed: text,
      mentioned: expanded.mentioned,
    });
  }

  /** The model of the custom command whose prompt `input` is, if it just ran; clears it. */
  #command_model(live: LiveSession, input: string): string | undefined {
    const command = live.command_model;
    live.command_model = undefined;
    return command?.prompt === input ? command.model : undefined;
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
    options: { persist?: boolean; note?: string } = {},
  ): Promise<boolean> {
    if (!PERMISSION_OPTIONS.includes(option)) {
      throw new SessionHostError(
        'invalid_argument',
        `option must be one of ${PERMISSION_OPTIONS.join(', ')}, got '${String(option)}'`,
      );
    }
    if (options.note !== undefined && typeof options.note !== 'string') {
      throw new SessionHostError('invalid_argument', 'note must be a string');
    }
    return this.#requests.respond(request_id, option, {
      persist: options.persist === true,
      ...(options.note === undefined ? {} : { note: options.note }),
    });
  }

  async set_approval_mode(session_id: string, mode: ApprovalMode): Promise<void> {
    approval_mode_argument(mode);
    const live = await this.#session(session_id);
    live.approval_mode = mode;
    live.touch();
  }

  async set_model(session_id: string, model: string): Promise<void> {
    text_argument(model, 'model');
    const live = await this.#session(session_id);
    let spec = model.trim();
    // a bare name no entry has: this session's provider with that model (`/model gpt-4.1`)
    if (!spec.includes('/') && this.#agent.resolve_model(spec) === null) {
      const current = this.#agent.resolve_model(live.model_spec)?.[0];
      if (current !== undefined) spec = `${current.kind}/${spec}`;
    }
    if (this.#agent.resolve_model(spec) === null) {
      const known = this.models()
        .map((entry) => `${entry.provider}/${entry.model}`)
        .join(', ');
      throw new SessionHostError(
        'invalid_argument',
        `no configured provider serves '${model}'${known ? `; configured: ${known}` : ''}`,
      );
    }
    live.model_spec = spec;
    live.touch();
  }

  commands(_session_id?: string): CommandInfo[] {
    return this.#agent.commands.list();
  }

  async run_command(session_id: string, name: string, args = ''): Promise<CommandResult> {
    const live = await this.#session(session_id);
    const result = await this.#agent.commands.run(
      host_command_context(this, this.#agent, live, this.#warn),
      name,
      args,
    );
    // the surface sends the prompt back with `prompt`: that turn runs on the command's model
    live.command_model =
      result.prompt !== undefined && result.model !== undefined
        ? { prompt: result.prompt, model: result.model }
        : undefined;
    return result;
  }

  models(): ModelInfo[] {
    return host_models(this.#agent);
  }

  tools(): ToolInfo[] {
    return host_tools(this.#agent);
  }

  async rewind_points(session_id: string): Promise<RewindPoint[]> {
    const live = await this.#session(session_id);
    if (live.handle === null) return [];
    return rewind_points(live.handle.state, this.#agent.checkpoint_store());
  }

  async rewind(session_id: string, request: RewindRequest): Promise<RewindOutcome> {
    if (typeof request !== 'object' || request === null) {
      throw new SessionHostError('invalid_argument', 'rewind takes { prompt, scope, dry_run, … }');
    }
    const live = await this.#session(session_id);
    this.#check_open();
    return rewind_live(live, this.#agent.checkpoint_store(), request);
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
      await this.#sessions.drain(options.deadline_ms ?? 10_000);
      await this.#agent.close();
    })();
    return this.#shutting_down;
  }
}

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
