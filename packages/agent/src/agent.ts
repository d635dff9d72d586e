import type { CheckpointStore } from '@lich/checkpoints';
import type { AgentListener, Usage } from '@lich/core';
import { AgentEmitter, type CompressResult, type Message } from '@lich/core';
import type { SessionHandle } from '@lich/session';
import { Sandbox, ToolExecutor, type ToolRegistry } from '@lich/tools';
import { attach_agent_mentions } from './agent_mentions.js';
import type { AgentOptions, AgentRunOptions, AgentRunResult } from './agent_options.js';
import { AgentPlugins } from './agent_plugins.js';
import { type Prepared, prepare_runs } from './agent_prepare.js';
import { run_agent } from './agent_run.js';
import { AgentCheckpoints } from './checkpoints/agent_checkpoints.js';
import { CHECKPOINT_HOOK } from './checkpoints/checkpoint_hook.js';
import { compact_history } from './compact_history.js';
import type { AgentConfig, ProviderEntry } from './config/config_schema.js';
import type { BudgetLedger } from './cost/budget_ledger.js';
import { MemoryBudgetLedger } from './cost/budget_ledger.js';
import { catalog_prices_any, load_price_book, type PriceBook } from './cost/price_book.js';
import { failure_hints } from './failure_hints.js';
import type { AttachedMentions } from './file_mentions.js';
import { HookDispatcher } from './hooks/hook_dispatcher.js';
import { resolve_hook_sets } from './hooks/hook_sources.js';
import { builtin_commands } from './host/builtin_commands.js';
import { CommandRegistry } from './host/command_registry.js';
import { ModelChats } from './model_chats.js';
import { open_session_file } from './open_session_file.js';
import { own_version } from './own_version.js';
import { PERMISSION_HOOK } from './permissions/permission_gate.js';
import {
  PermissionPolicy,
  type RememberedAnswers,
  remembered_answers,
} from './permissions/permission_policy.js';
import { tool_allowed } from './permissions/tool_allowlist.js';
import { SandboxProbe } from './sandbox_probe.js';
import { find_skills_for } from './skills/find_skills.js';
import type { SkillCatalog } from './skills/skill_types.js';
import { skills_command } from './skills/skills_command.js';
import { agent_registry } from './toolbox/agent_registry.js';
import { ALLOWANCE_HOOK } from './toolbox/allowance_hook.js';
import { config_for_trust, held_warning } from './trust/config_for_trust.js';

export type { AgentOptions, AgentRunOptions, AgentRunResult } from './agent_options.js';

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
 * - a plugin that cannot be loaded rejects `run` (and `prepare_plugins`) with a `ConfigError`; a
 *   failed MCP server and a session that cannot be written are warnings, and the run goes on;
 * - `commands` holds the built-in slash commands from the start, and the plugins' once they are
 *   loaded (`prepare_plugins`, or the first run); every surface runs its slash commands from it;
 * - `close` stops MCP servers and is idempotent.
 *
 * Its parts: `agent_registry` (the tools), `AgentPlugins` (plugins and custom commands),
 * `prepare_runs` (system prompt, MCP), `run_agent` (one run), `open_session_file`,
 * `attach_agent_mentions` and `SandboxProbe`.
 */
export class Agent {
  readonly config: AgentConfig;
  /** Every event of every run; surfaces subscribe here. */
  readonly emitter: AgentEmitter;
  readonly registry: ToolRegistry;
  readonly executor: ToolExecutor;
  /** The config's permission rules; every run's tool calls go through them. */
  readonly permissions: PermissionPolicy;
  /** The slash commands every surface lists and runs: the built-in ones, then the plugins'. */
  readonly commands = new CommandRegistry();
  /** `allow_always` / `reject_always` answers, per session file, for runs sharing one. */
  readonly #remembered = new WeakMap<SessionHandle, RememberedAnswers>();
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #chats: ModelChats;
  readonly #warn: (text: string) => void;
  readonly #lich_version: string | undefined;
  readonly #surface: AgentOptions['surface'];
  readonly #now: AgentOptions['now'];
  #prepared: Promise<Prepared> | undefined;
  #mcp: { close(): Promise<void> } | undefined;
  #closed = false;
  #prices: Promise<PriceBook> | undefined;
  #prices_now: PriceBook | undefined;
  /** Whether `price_book` may import the catalog (`AgentOptions.price_catalog`). */
  readonly #price_catalog: boolean;
  readonly #session_registry: string | undefined;
  /** What today's sessions spent before this process, read once per day key. */
  readonly #day_spent = new Map<string, Promise<number>>();
  /** Where every run's budget is reserved and settled. */
  readonly budget_ledger: BudgetLedger;
  readonly #checkpoints: AgentCheckpoints;
  /** Every tool name that existed before `tools_enabled`/`tools_disabled` filtered them. */
  readonly #known_tools: ReadonlySet<string>;
  /** Whether the person trusts the work dir (see `AgentOptions.trusted`). */
  readonly trusted: boolean;
  /** The command hooks of the config and its imports (`hooks`), run on the agent's events. */
  readonly hooks: HookDispatcher;
  #skills: Promise<SkillCatalog> | undefined;
  /** Hooks run without waiting for them (Notification, an automatic PreCompact); `close` waits. */
  readonly #hooks_running = new Set<Promise<unknown>>();
  readonly #sandbox_probe: SandboxProbe;
  readonly #plugins: AgentPlugins;

  constructor(options: AgentOptions) {
    this.trusted = options.trusted === true;
    this.#price_catalog = options.price_catalog !== false;
    // until the folder is trusted, what the repository's config file sets that would run code or
    // widen what runs without asking is held back: everything below sees only the rest
    const { config, held } = config_for_trust(options.config, this.trusted);
    this.config = config;
    this.#env = options.env ?? process.env;
    this.#warn =
      options.on_warning ?? ((text: string) => process.stderr.write(`lich: warning: ${text}\n`));
    if (held.length > 0) this.#warn(held_warning(held));
    this.#lich_version = options.lich_version;
    this.budget_ledger = options.budget_ledger ?? new MemoryBudgetLedger();
    this.#session_registry = options.session_registry;
    this.#surface = options.surface;
    this.#now = options.now;
    this.emitter = new AgentEmitter();
    const { registry, known_tools } = agent_registry(config, options.tools);
    this.registry = registry;
    this.#known_tools = known_tools;
    // the sandbox comes from the config alone: no permission decision reaches it, so a command
    // allowed always still runs sandboxed, and yolo runs commands unsandboxed only with mode off
    const sandbox = new Sandbox(config.sandbox, { on_warning: (message) => this.#warn(message) });
    this.#sandbox_probe = new SandboxProbe({ off: config.sandbox.mode === 'off', env: this.#env });
    this.executor = new ToolExecutor(this.registry, { work_dir: config.work_dir, sandbox });
    this.permissions = new PermissionPolicy(config.permissions, config.work_dir);
    // first, so a call that may not run reaches no plugin hook and takes no checkpoint
    this.hooks = new HookDispatcher({
      sets: () =>
        resolve_hook_sets({
          sets: config.hooks,
          work_dir: config.work_dir,
          ...(this.#env.HOME ? { home: this.#env.HOME } : {}),
          on_warning: this.#warn,
        }),
      trusted: this.trusted,
      work_dir: config.work_dir,
      sandbox,
      env_passthrough: config.sandbox.env_passthrough,
      on_warning: (text) => this.#warn(text),
    });
    // command hooks (PreToolUse) first, as Claude Code runs them before its permission question;
    // the plugins' hooks come after these, in load order
    this.executor.add_hooks([
      ALLOWANCE_HOOK,
      this.hooks.tool_hooks(),
      PERMISSION_HOOK,
      CHECKPOINT_HOOK,
    ]);
    this.#checkpoints = new AgentCheckpoints(
      config,
      options.checkpoints !== false && config.checkpoints.enabled,
    );
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
    this.#plugins = new AgentPlugins({
      config,
      env: this.#env,
      target: {
        registry: this.registry,
        executor: this.executor,
        emitter: this.emitter,
        commands: this.commands,
      },
      command_io: {
        work_dir: config.work_dir,
        sandbox,
        policy: this.permissions,
        mode: config.permissions.mode ?? 'default',
        trusted: this.trusted,
        env_passthrough: config.sandbox.env_passthrough,
      },
      on_warning: this.#warn,
    });
    for (const command of builtin_commands()) this.commands.register(command);
    this.commands.register(skills_command(() => this.skills()));
  }

  /**
   * The skills found for the work dir (once; see `find_skills`), or none when `skills.enabled` is
   * false. Warnings are in the catalog, not said. Never rejects.
   */
  skills(): Promise<SkillCatalog> {
    const { config } = this;
    this.#skills ??= find_skills_for(config, this.#env);
    return this.#skills;
  }

  /**
   * The chain a run on `model` (`model` or `provider/model`) would use, or null when the config
   * names no such provider or model. Absent: the configured chain.
   */
  resolve_model(model?: string): readonly Readonly<ProviderEntry>[] | null {
    return this.#chats.resolve(model);
  }

  /**
   * What every run's system prompt carries besides Lich's own text, for a subagent's prompt: the
   * user's and the project's instructions (AGENTS.md, rendered; '' when there are none) and the
   * clock of the prompt's date. Prepares runs first when no run has (rejects as a run would).
   */
  async subagent_context(signal?: AbortSignal): Promise<{ instructions: string; now?: Date }> {
    const prepared = await this.#prepare(signal);
    return {
      instructions: prepared.instructions,
      ...(this.#now === undefined ? {} : { now: this.#now() }),
    };
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

  /**
   * Loads the config's plugins now, once (the first run does it otherwise), so their tools and
   * slash commands are there before any run. Rejects with a `ConfigError` naming the plugin that
   * could not be loaded; the next call tries again.
   */
  prepare_plugins(): Promise<void> {
    return this.#plugins.prepare();
  }

  #prepare(signal: AbortSignal | undefined): Promise<Prepared> {
    this.#prepared ??= prepare_runs({
      config: this.config,
      registry: this.registry,
      env: this.#env,
      known_tools: this.#known_tools,
      load_plugins: () => this.prepare_plugins(),
      on_mcp: (attachment) => {
        this.#mcp = attachment;
      },
      on_warning: this.#warn,
      skills: () => this.skills(),
      ...(signal === undefined ? {} : { signal }),
      ...(this.#surface === undefined ? {} : { surface: this.#surface }),
      ...(this.#now === undefined ? {} : { now: this.#now }),
    });
    // A failed preparation (a plugin that does not load) is retried by the next run.
    this.#prepared.catch(() => {
      this.#prepared = undefined;
    });
    return this.#prepared;
  }

  /**
   * The checkpoint store of the work dir (`.lich/checkpoints`), or null when checkpoints are off
   * (`checkpoints: false` in the config, or the agent was built with `checkpoints: false`).
   * Opening it does no I/O.
   */
  checkpoint_store(): CheckpointStore | null {
    return this.#checkpoints.store();
  }

  /**
   * The prices of model calls: the config's `prices` over the catalog, which is imported the
   * first time this is called (a run calls it), never at start-up, and not at all when no
   * provider of the config is of a kind it prices (`catalog_prices_any`) or the agent was built
   * with `price_catalog: false`. Never rejects.
   */
  price_book(): Promise<PriceBook> {
    const catalog =
      this.#price_catalog && catalog_prices_any(this.config.providers.map((entry) => entry.kind));
    this.#prices ??= load_price_book(this.config.prices, { catalog }).then((book) => {
      this.#prices_now = book;
      return book;
    });
    return this.#prices;
  }

  /**
   * The prices once `price_book` loaded them: every run does, by the end of its first model call
   * (before it, when a budget is set). Undefined before.
   */
  get prices(): PriceBook | undefined {
    return this.#prices_now;
  }

  /**
   * The dollars of one model call at the loaded prices (`prices`): null for a model without a
   * known price, or before they are loaded. A run's calls are all priced (`priced_chat`).
   */
  cost_of(usage: Usage, provider: string | undefined, model: string | undefined): number | null {
    return this.#prices_now?.cost(usage, provider, model) ?? null;
  }

  /** The version written to new sessions: `lich_version`, else this package's. */
  async version(): Promise<string> {
    return this.#lich_version ?? (await own_version());
  }

  /**
   * Opens a new session file under `session_dir` for runs to record into (the caller closes it).
   * Best-effort: resolves with null after a warning when it cannot be created.
   */
  create_session(options: { parent_session_id?: string } = {}): Promise<SessionHandle | null> {
    return open_session_file(this.config, {
      ...options,
      ...(this.#session_registry === undefined ? {} : { session_registry: this.#session_registry }),
      ...(this.#lich_version === undefined ? {} : { lich_version: this.#lich_version }),
      on_warning: this.#warn,
    });
  }

  /**
   * Runs one user message to an answer. See the class contract for failures and aborts.
   */
  async run(options: AgentRunOptions): Promise<AgentRunResult> {
    if (this.#closed) throw new Error('Agent.run: the agent is closed');
    const prepared = await this.#prepare(options.signal);
    return run_agent(
      {
        agent: this,
        prepared,
        chats: this.#chats,
        day_spent: this.#day_spent,
        checkpoints: this.#checkpoints,
        warn: this.#warn,
        background: (running) => this.#background(running),
      },
      options,
    );
  }

  /**
   * Compresses a conversation now, as the loop does when it grows too long (`/compact`): the
   * middle replaced by a summary the model writes. Never throws for a failed summary (`ok: false`).
   */
  async compact(
    history: readonly Message[],
    options: { model?: string; signal?: AbortSignal } = {},
  ): Promise<CompressResult> {
    return compact_history(history, {
      hooks: this.hooks,
      chat: () => this.#chats.chat_for(options.model),
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

  /**
   * Attaches the files a prompt names as `@path` (C31), read through this agent's `read_file`
   * (its guard and masked paths); nothing when `read_file` is not among the enabled tools.
   * Never rejects.
   */
  attach_file_mentions(text: string): Promise<AttachedMentions> {
    return attach_agent_mentions(text, {
      registry: this.registry,
      executor: this.executor,
      work_dir: this.config.work_dir,
    });
  }

  /**
   * How this agent's commands run: `bwrap` or `sandbox-exec` when a sandbox starts here, `none`
   * when none can, `off` when the config turns it off. Looked up once per process; never rejects.
   */
  sandbox_kind(): Promise<string> {
    return this.#sandbox_probe.kind();
  }

  /** `sandbox_kind` when it is already known, without waiting; else undefined. */
  sandbox_kind_now(): string | undefined {
    return this.#sandbox_probe.kind_now();
  }

  /**
   * Lines of advice for a failed run, from what failed and this agent's providers and environment:
   * which variable a refused key is read from, whether a local server runs, how long a provider
   * asked to wait (`failure_hints`). Every surface shows the same ones. Pure; never throws.
   */
  failure_hints(error: unknown): string[] {
    return failure_hints(error, this.config.providers, this.#env);
  }

  #background(running: Promise<unknown>): void {
    const settled = running
      .catch(() => undefined)
      .finally(() => this.#hooks_running.delete(settled));
    this.#hooks_running.add(settled);
  }

  /** Stops MCP servers and plugins. Idempotent; never rejects. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#hooks_running]);
    if (await this.hooks.has('SessionEnd').catch(() => false)) {
      await this.hooks
        .run('SessionEnd', { reason: 'other' }, { session: { handle: null, session_id: 'end' } })
        .catch(() => undefined);
    }
    await this.#checkpoints.settled();
    this.#checkpoints.close();
    await this.#mcp?.close().catch(() => undefined);
    await this.#plugins.close();
  }
}
