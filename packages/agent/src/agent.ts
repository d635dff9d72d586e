import { dirname } from 'node:path';
import type {
  AgentListener,
  ChatFn,
  LoopOutcome,
  Message,
  ToolDefinition,
  Usage,
} from '@lich/core';
import {
  AgentEmitter,
  type CompressResult,
  compress_messages,
  empty_usage,
  run_conversation,
} from '@lich/core';
import type { RouterEvent } from '@lich/providers';
import {
  attach_recorder,
  type SessionHandle,
  type SessionRecorder,
  SessionStore,
} from '@lich/session';
import {
  BUILTIN_TOOLS,
  builtin_names,
  Sandbox,
  type Tool,
  ToolExecutor,
  ToolRegistry,
} from '@lich/tools';
import { collect_usage } from './collect_usage.js';
import { user_config_path } from './config_file.js';
import type { AgentConfig, ProviderEntry } from './config_schema.js';
import { type LoadedPlugins, load_plugins } from './load_plugins.js';
import { ModelChats } from './model_chats.js';
import { own_version } from './own_version.js';
import { type Approver, PERMISSION_GATE_FIELD, PERMISSION_HOOK } from './permission_gate.js';
import {
  PermissionPolicy,
  type RememberedAnswers,
  remembered_answers,
} from './permission_policy.js';
import {
  find_project_instructions,
  find_user_instructions,
  type ProjectInstructions,
  with_project_instructions,
} from './project_instructions.js';
import type { ApprovalMode } from './session_host_types.js';
import { session_permission_gate } from './session_permission_gate.js';
import { tool_allowed, unmatched_tool_patterns } from './tool_allowlist.js';

/** How an Agent is built. */
export interface AgentOptions {
  /** The frozen config (`load_config` or `make_config`). */
  config: AgentConfig;
  /** Where API keys are read from (`api_key_env`); default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Talk to this ChatFn instead of the configured providers (tests, library users). */
  chat?: ChatFn;
  /**
   * Extra tools (subject to `tools_enabled`): registered after the builtins, except that a tool
   * named like a builtin takes that builtin's place (a surface's own `read_file`, say).
   */
  tools?: readonly Tool<never>[];
  /** The version written to new sessions (default: this package's). */
  lich_version?: string;
  /** Hears warnings: a failed MCP server, a session that could not be opened. Default stderr. */
  on_warning?: (text: string) => void;
  /** Hears the provider router's retries and failovers. */
  on_provider_event?: (event: RouterEvent) => void;
}

/** One run's input. */
export interface AgentRunOptions {
  /** The user's message. */
  input: string;
  /** Earlier messages of the conversation; never mutated. */
  history?: readonly Message[];
  /** Aborts the run: it ends with `stopped_reason: 'aborted'`. */
  signal?: AbortSignal;
  /**
   * The session to record into: a handle (shared across runs, e.g. a chat), `false` for none, or
   * absent to open a new session file for this run under `session_dir`.
   */
  session?: SessionHandle | false;
  /** Hears this run's events only (the agent's emitter hears every run's). */
  on_event?: AgentListener;
  /**
   * Asked after each turn's tool results; the messages it returns go in before the next model
   * call (`LoopParams.take_steering`).
   */
  take_steering?: () => readonly Message[];
  /**
   * Run on this model instead of the chain's first: `model` or `provider/model`
   * (`Agent.resolve_model`). Ignored when the agent was built with `chat`.
   */
  model?: string;
  /** Hears the provider router's retries and failovers of this run only. */
  on_provider_event?: (event: RouterEvent) => void;
  /** Hears this run's warnings (a session record that could not be written) instead of the agent's. */
  on_warning?: (text: string) => void;
  /** Extra fields handed to every tool call's context (a permission gate, a session id). */
  tool_context?: Readonly<Record<string, unknown>>;
  /**
   * How this run's tool calls are approved (`PermissionPolicy`): default
   * `config.permissions.mode`, else `yolo` (every call runs but those a deny rule names, as
   * before permissions existed). Ignored when `tool_context` brings its own `permission_gate`.
   */
  approval_mode?: ApprovalMode;
  /** Asks a person when the policy says `ask`; absent, `ask` means deny (with how to allow). */
  approver?: Approver;
}

/** What a run produced. */
export interface AgentRunResult {
  outcome: LoopOutcome;
  /** The whole conversation after the run: the history, the new message and the run's messages. */
  transcript: Message[];
  /** The summed usage of this run's model calls. */
  usage_total: Usage;
  /** The session file written to, or null when the run was not recorded. */
  session_path: string | null;
}

function enabled_mcp_servers(config: AgentConfig): boolean {
  if (config.tools_enabled !== undefined && config.tools_enabled.length === 0) return false;
  return Object.values(config.mcp_servers).some((server) => server.enabled !== false);
}

interface Prepared {
  system_prompt: string;
  definitions: ToolDefinition[];
}

/**
 * The composition root: config, provider router, tool registry and executor, MCP, plugins,
 * session recording and usage, around `run_conversation`.
 *
 * Contract:
 * - builtins are registered at construction (all of them, or those `tools_enabled` allows);
 *   plugins, project instructions (AGENTS.md) and MCP servers are set up once, before the first
 *   model call; `@lich/mcp` is imported only when an MCP server is enabled and `tools_enabled` is
 *   not empty;
 * - `run` never mutates `history`; each run has its own history and usage total;
 * - a model failure rejects `run` with the provider's error (the session records
 *   `run_end` with `stopped_reason: 'error'`); an abort resolves with `stopped_reason: 'aborted'`;
 * - a plugin that cannot be loaded rejects `run` with a `ConfigError`; a failed MCP server and a
 *   session that cannot be written are warnings, and the run goes on;
 * - `close` stops MCP servers and is idempotent.
 */
export class Agent {
  readonly config: AgentConfig;
  /** Every event of every run; surfaces subscribe here. */
  readonly emitter: AgentEmitter;
  readonly registry: ToolRegistry;
  readonly executor: ToolExecutor;
  /** The config's permission rules; every run's tool calls go through them. */
  readonly permissions: PermissionPolicy;
  /** `allow_always` / `reject_always` answers, per session file, for runs sharing one. */
  readonly #remembered = new WeakMap<SessionHandle, RememberedAnswers>();
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #chats: ModelChats;
  readonly #warn: (text: string) => void;
  readonly #lich_version: string | undefined;
  #prepared: Promise<Prepared> | undefined;
  #plugins: LoadedPlugins | undefined;
  #mcp: { close(): Promise<void> } | undefined;
  #closed = false;
  /** Every tool name that existed before `tools_enabled`/`tools_disabled` filtered them. */
  readonly #known_tools = new Set<string>(BUILTIN_TOOLS.keys());

  constructor(options: AgentOptions) {
    const { config } = options;
    this.config = config;
    this.#env = options.env ?? process.env;
    this.#warn =
      options.on_warning ?? ((text: string) => process.stderr.write(`lich: warning: ${text}\n`));
    this.#lich_version = options.lich_version;
    this.emitter = new AgentEmitter();
    this.registry = new ToolRegistry();
    const allowed = config.tools_enabled;
    const disabled = config.tools_disabled;
    if (allowed === undefined || allowed.length > 0) {
      // builtins in BUILTIN_ORDER (never module load order); an extra tool of a builtin's name
      // takes its place
      const extra = new Map((options.tools ?? []).map((tool) => [tool.name, tool]));
      for (const name of builtin_names()) {
        if (!tool_allowed(name, allowed, disabled)) continue;
        this.registry.register(extra.get(name) ?? (BUILTIN_TOOLS.get(name) as Tool<unknown>));
      }
      for (const tool of options.tools ?? []) {
        this.#known_tools.add(tool.name);
        if (BUILTIN_TOOLS.has(tool.name) || !tool_allowed(tool.name, allowed, disabled)) continue;
        // a second extra tool of the same name still throws, as before
        this.registry.register(tool);
      }
    }
    // the sandbox comes from the config alone: no permission decision reaches it, so a command
    // allowed always still runs sandboxed, and yolo runs commands unsandboxed only with mode off
    this.executor = new ToolExecutor(this.registry, {
      work_dir: config.work_dir,
      sandbox: new Sandbox(config.sandbox, { on_warning: (message) => this.#warn(message) }),
    });
    this.permissions = new PermissionPolicy(config.permissions, config.work_dir);
    // first, so a call that may not run reaches no plugin hook
    this.executor.add_hooks(PERMISSION_HOOK);
    this.#chats = new ModelChats({
      providers: config.providers,
      env: this.#env,
      ...(options.chat === undefined ? {} : { chat: options.chat }),
      ...(options.on_provider_event === undefined
        ? {}
        : { on_provider_event: options.on_provider_event }),
    });
    // the configured chain is built now, so a config the router refuses fails here, as before
    this.#chats.chat_for(undefined);
  }

  /**
   * The chain a run on `model` (`model` or `provider/model`) would use, or null when the config
   * names no such provider or model. Absent: the configured chain.
   */
  resolve_model(model?: string): readonly Readonly<ProviderEntry>[] | null {
    return this.#chats.resolve(model);
  }

  /** Adds a listener of every run's events; returns a function that removes it. */
  on(listener: AgentListener): () => void {
    return this.emitter.on(listener);
  }

  /** The tools the model is offered (after plugins and MCP once the first run started). */
  get tool_names(): string[] {
    const { tools_enabled, tools_disabled } = this.config;
    return this.registry
      .names()
      .filter((name) => tool_allowed(name, tools_enabled, tools_disabled));
  }

  #prepare(signal: AbortSignal | undefined): Promise<Prepared> {
    this.#prepared ??= (async () => {
      const { config } = this;
      if (config.plugins.length > 0) {
        this.#plugins = await load_plugins(config.plugins, {
          registry: this.registry,
          executor: this.executor,
          emitter: this.emitter,
          work_dir: config.work_dir,
          on_warning: this.#warn,
        });
      }
      if (enabled_mcp_servers(config)) {
        // Imported here so a run without MCP servers never loads the MCP client.
        const { attach_mcp } = await import('@lich/mcp');
        const attachment = await attach_mcp(config.mcp_servers, this.registry, {
          ...(config.tools_enabled === undefined ? {} : { tools_enabled: config.tools_enabled }),
          work_dir: config.work_dir,
          on_warning: this.#warn,
          ...(signal === undefined ? {} : { signal }),
        });
        this.#mcp = attachment;
      }
      const { tools_enabled, tools_disabled } = config;
      const registered = this.registry.names();
      for (const warning of unmatched_tool_patterns(
        [...new Set([...this.#known_tools, ...registered])],
        {
          ...(tools_enabled === undefined ? {} : { tools_enabled }),
          ...(tools_disabled === undefined ? {} : { tools_disabled }),
        },
      )) {
        this.#warn(warning);
      }
      // A tool the lists do not allow is not offered, and cannot be called either.
      for (const name of registered) {
        if (!tool_allowed(name, tools_enabled, tools_disabled)) this.registry.unregister(name);
      }
      const on_skip = (path: string, reason: string) =>
        this.#warn(`instructions ${path} were not read: ${reason}`);
      const user = await find_user_instructions(dirname(user_config_path(this.#env)), {
        on_skip,
      });
      const instructions: ProjectInstructions[] = [
        ...(user ? [user] : []),
        ...(await find_project_instructions(config.work_dir, { on_skip })),
      ];
      return {
        system_prompt: with_project_instructions(
          config.system_prompt,
          instructions,
          config.work_dir,
        ),
        definitions: config.tools_enabled?.length === 0 ? [] : this.registry.definitions(),
      };
    })();
    // A failed preparation (a plugin that does not load) is retried by the next run.
    this.#prepared.catch(() => {
      this.#prepared = undefined;
    });
    return this.#prepared;
  }

  /** The version written to new sessions: `lich_version`, else this package's. */
  async version(): Promise<string> {
    return this.#lich_version ?? (await own_version());
  }

  /**
   * Opens a new session file under `session_dir` for runs to record into (the caller closes it).
   * Best-effort: resolves with null after a warning when it cannot be created.
   */
  async create_session(): Promise<SessionHandle | null> {
    try {
      const store = new SessionStore({ session_dir: this.config.session_dir });
      return await store.create({
        work_dir: this.config.work_dir,
        model: this.config.providers[0]?.model ?? 'unknown',
        lich_version: this.#lich_version ?? (await own_version()),
      });
    } catch (error) {
      this.#warn(`the run is not recorded: ${error instanceof Error ? error.message : error}`);
      return null;
    }
  }

  /**
   * Runs one user message to an answer. See the class contract for failures and aborts.
   */
  async run(options: AgentRunOptions): Promise<AgentRunResult> {
    if (this.#closed) throw new Error('Agent.run: the agent is closed');
    const { config } = this;
    const prepared = await this.#prepare(options.signal);
    const seed: Message[] = [...(options.history ?? []), { role: 'user', content: options.input }];
    // Each run has its own emitter, forwarded to the shared one, so runs in parallel (a gateway
    // serving several chats) never record or count each other's events.
    const run_emitter = new AgentEmitter();
    run_emitter.on((event) => this.emitter.emit(event));
    if (options.on_event) run_emitter.on(options.on_event);
    const usage_total = empty_usage();
    run_emitter.on(collect_usage(usage_total));
    const own_session = options.session === undefined;
    const handle =
      options.session === false
        ? null
        : options.session === undefined
          ? await this.create_session()
          : options.session;
    const warn = options.on_warning ?? this.#warn;
    const recorder: SessionRecorder | null = handle
      ? attach_recorder(run_emitter, handle, {
          on_error: (error) =>
            warn(`session ${handle.path}: ${error instanceof Error ? error.message : error}`),
        })
      : null;
    try {
      const chat = this.#chats.chat_for(options.model);
      const deps = {
        chat,
        tools: this.executor,
        definitions: prepared.definitions,
        emitter: run_emitter,
        tool_context: {
          [PERMISSION_GATE_FIELD]: this.#run_gate(options, handle, warn),
          ...options.tool_context,
          work_dir: config.work_dir,
          env_passthrough: config.env_passthrough,
        },
      };
      const params = {
        max_turns: config.max_turns,
        system_prompt: prepared.system_prompt,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        context_window: config.context_window,
        compression: { ...config.compression },
        ...(options.take_steering === undefined ? {} : { take_steering: options.take_steering }),
      };
      const outcome = await this.#chats.with_listener(options.on_provider_event, () =>
        run_conversation(deps, seed, params),
      );
      return {
        outcome,
        transcript: outcome.messages,
        usage_total,
        session_path: handle?.path ?? null,
      };
    } finally {
      if (recorder) {
        recorder.detach();
        await recorder.idle();
      }
      if (handle && own_session) await handle.close();
    }
  }

  /**
   * Compresses a conversation now, as the loop does when it grows too long (`/compact`): the
   * middle replaced by a summary the model writes. Never throws for a failed summary (`ok: false`).
   */
  async compact(
    history: readonly Message[],
    options: { model?: string; signal?: AbortSignal } = {},
  ): Promise<CompressResult> {
    return compress_messages(history, this.#chats.chat_for(options.model), {
      keep_recent: this.config.compression.keep_recent,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  /** The answers remembered for a session file (shared by the runs recording into it). */
  remembered_answers(handle: SessionHandle | null): RememberedAnswers {
    if (handle === null) return remembered_answers();
    let remembered = this.#remembered.get(handle);
    if (remembered === undefined) {
      remembered = remembered_answers();
      this.#remembered.set(handle, remembered);
    }
    return remembered;
  }

  #run_gate(
    options: AgentRunOptions,
    handle: SessionHandle | null,
    warn: (text: string) => void,
  ): unknown {
    if (options.tool_context?.[PERMISSION_GATE_FIELD] !== undefined) return undefined;
    const mode = options.approval_mode ?? this.config.permissions.mode ?? 'yolo';
    const approver = options.approver ?? null;
    return session_permission_gate({
      policy: this.permissions,
      mode: () => mode,
      approver: () => approver,
      remembered: this.remembered_answers(handle),
      handle,
      on_warning: warn,
    });
  }

  /** Stops MCP servers and plugins. Idempotent; never rejects. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#mcp?.close().catch(() => undefined);
    await this.#plugins?.close().catch(() => undefined);
  }
}
