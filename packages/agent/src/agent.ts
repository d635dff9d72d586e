import { dirname } from 'node:path';
import type { CheckpointStore } from '@lich/checkpoints';
import type { AgentListener, ChatFn } from '@lich/core';
import {
  AgentEmitter,
  type CompressResult,
  compress_messages,
  empty_usage,
  type Message,
  run_conversation,
  with_images,
} from '@lich/core';
import { attach_recorder, type SessionHandle, type SessionRecorder } from '@lich/session';
import {
  BUILTIN_TOOL_NAMES,
  BUILTIN_TOOLS,
  probe_sandbox,
  Sandbox,
  ToolExecutor,
  ToolRegistry,
} from '@lich/tools';
import type { AgentOptions, AgentRunOptions, AgentRunResult } from './agent_options.js';
import { type Prepared, prepare_runs } from './agent_prepare.js';
import { AgentCheckpoints } from './checkpoints/agent_checkpoints.js';
import { CHECKPOINT_HOOK, CHECKPOINTS_FIELD } from './checkpoints/checkpoint_hook.js';
import { collect_usage } from './collect_usage.js';
import { user_config_path } from './config/config_file.js';
import type { AgentConfig, ProviderEntry } from './config/config_schema.js';
import { guard_budget } from './cost/budget_guard.js';
import type { BudgetLedger } from './cost/budget_ledger.js';
import { MemoryBudgetLedger } from './cost/budget_ledger.js';
import { budget_limits } from './cost/budget_limits.js';
import { add_cost } from './cost/model_price.js';
import { load_price_book, type PriceBook } from './cost/price_book.js';
import { find_custom_commands } from './custom_commands/find_custom_commands.js';
import { register_custom_commands } from './custom_commands/register_custom_commands.js';
import { failure_hints } from './failure_hints.js';
import { type AttachedMentions, attach_file_mentions } from './file_mentions.js';
import { HOOK_SESSION_FIELD, HookDispatcher, type HookSession } from './hooks/hook_dispatcher.js';
import { resolve_hook_sets } from './hooks/hook_sources.js';
import { continue_while_stop_hooks_block, run_prompt_hooks } from './hooks/prompt_hooks.js';
import { builtin_commands } from './host/builtin_commands.js';
import { CommandRegistry } from './host/command_registry.js';
import type { ApprovalMode } from './host/session_host_types.js';
import { type LoadedPlugins, load_plugins } from './load_plugins.js';
import { ModelChats } from './model_chats.js';
import { own_version } from './own_version.js';
import { call_preview } from './permissions/call_preview.js';
import {
  type Approver,
  PERMISSION_GATE_FIELD,
  PERMISSION_HOOK,
} from './permissions/permission_gate.js';
import {
  PermissionPolicy,
  type RememberedAnswers,
  remembered_answers,
} from './permissions/permission_policy.js';
import { tool_kind } from './permissions/permission_rules.js';
import { session_permission_gate } from './permissions/session_permission_gate.js';
import { tool_allowed } from './permissions/tool_allowlist.js';
import { session_store_of } from './session_store_of.js';
import { find_skills_for } from './skills/find_skills.js';
import { skill_grants } from './skills/skill_grants.js';
import { SKILL_GRANTS_FIELD } from './skills/skill_tool.js';
import type { SkillCatalog } from './skills/skill_types.js';
import { skills_command } from './skills/skills_command.js';
import { AGENT_TOOL_NAMES, AGENT_TOOLS } from './toolbox/agent_tools.js';
import { ALLOWANCE_HOOK, ALLOWED_TOOLS_FIELD } from './toolbox/allowance_hook.js';
import { APPROVAL_MODE_FIELD } from './toolbox/exit_plan_mode.js';
import { SUBAGENT_FIELD, SubagentRunner } from './toolbox/subagent_runner.js';
import { carry_todos } from './toolbox/todo_list.js';
import { config_for_trust, held_warning } from './trust/config_for_trust.js';
import { remember_session_dir } from './usage/known_session_dirs.js';

export type { AgentOptions, AgentRunOptions, AgentRunResult } from './agent_options.js';

/** A file name a mention may name a picture by. */
const PICTURE_NAME = /\.(png|jpe?g|gif|webp)$/i;

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
  #sandbox_kind: Promise<string> | undefined;
  #sandbox_known: string | undefined;
  #plugins: Promise<LoadedPlugins | undefined> | undefined;
  #mcp: { close(): Promise<void> } | undefined;
  #closed = false;
  #prices: Promise<PriceBook> | undefined;
  #prices_now: PriceBook | undefined;
  readonly #session_registry: string | undefined;
  /** What today's sessions spent before this process, read once per day key. */
  readonly #day_spent = new Map<string, Promise<number>>();
  /** Where every run's budget is reserved and settled. */
  readonly budget_ledger: BudgetLedger;
  readonly #checkpoints: AgentCheckpoints;
  /** Every tool name that existed before `tools_enabled`/`tools_disabled` filtered them. */
  readonly #known_tools = new Set<string>([...BUILTIN_TOOL_NAMES, ...AGENT_TOOL_NAMES]);
  /** Whether the person trusts the work dir (see `AgentOptions.trusted`). */
  readonly trusted: boolean;
  /** The command hooks of the config and its imports (`hooks`), run on the agent's events. */
  readonly hooks: HookDispatcher;
  #skills: Promise<SkillCatalog> | undefined;
  #custom_commands: Promise<void> | undefined;
  /** Hooks run without waiting for them (Notification, an automatic PreCompact); `close` waits. */
  readonly #hooks_running = new Set<Promise<unknown>>();
  readonly #sandbox: Sandbox;

  constructor(options: AgentOptions) {
    this.trusted = options.trusted === true;
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
    const allowed = config.tools_enabled;
    const disabled = config.tools_disabled;
    // one filter at the registry's door: builtins, extra tools, plugins and MCP tools (at attach
    // and on every tool-list change) all pass through it
    this.registry = new ToolRegistry({
      admit: (name) => tool_allowed(name, allowed, disabled),
    });
    // builtins in BUILTIN_TOOLS order; an extra tool of a builtin's name takes its place
    const extra = new Map((options.tools ?? []).map((tool) => [tool.name, tool]));
    for (const builtin of [...BUILTIN_TOOLS, ...AGENT_TOOLS]) {
      this.registry.register(extra.get(builtin.name) ?? builtin);
    }
    for (const tool of options.tools ?? []) {
      this.#known_tools.add(tool.name);
      // a second extra tool of the same name still throws, as before
      if (!this.#known_tools_builtin(tool.name)) this.registry.register(tool);
    }
    // the sandbox comes from the config alone: no permission decision reaches it, so a command
    // allowed always still runs sandboxed, and yolo runs commands unsandboxed only with mode off
    const sandbox = new Sandbox(config.sandbox, { on_warning: (message) => this.#warn(message) });
    this.#sandbox = sandbox;
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

  #known_tools_builtin(name: string): boolean {
    return BUILTIN_TOOL_NAMES.includes(name) || AGENT_TOOL_NAMES.includes(name);
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
    const { config } = this;
    if (config.plugins.length === 0) return this.#prepare_custom_commands();
    this.#plugins ??= load_plugins(config.plugins, {
      registry: this.registry,
      executor: this.executor,
      emitter: this.emitter,
      commands: this.commands,
      work_dir: config.work_dir,
      on_warning: this.#warn,
    });
    const loading = this.#plugins;
    loading.catch(() => {
      if (this.#plugins === loading) this.#plugins = undefined;
    });
    return loading.then(() => this.#prepare_custom_commands());
  }

  /** Finds the custom commands once and adds them to `commands`, after the plugins'. */
  #prepare_custom_commands(): Promise<void> {
    const { config } = this;
    this.#custom_commands ??= find_custom_commands({
      work_dir: config.work_dir,
      config_dir: dirname(user_config_path(this.#env)),
    }).then((catalog) => {
      for (const warning of catalog.warnings) this.#warn(warning);
      register_custom_commands(
        this.commands,
        catalog.commands,
        {
          work_dir: config.work_dir,
          sandbox: this.#sandbox,
          policy: this.permissions,
          mode: config.permissions.mode ?? 'default',
          trusted: this.trusted,
          env_passthrough: config.sandbox.env_passthrough,
        },
        this.#warn,
      );
    });
    return this.#custom_commands;
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
   * first time this is called (a run calls it), never at start-up. Never rejects.
   */
  price_book(): Promise<PriceBook> {
    this.#prices ??= load_price_book(this.config.prices).then((book) => {
      this.#prices_now = book;
      return book;
    });
    return this.#prices;
  }

  /** The prices once `price_book` loaded them (every run does, before its first model call). */
  get prices(): PriceBook | undefined {
    return this.#prices_now;
  }

  /** The version written to new sessions: `lich_version`, else this package's. */
  async version(): Promise<string> {
    return this.#lich_version ?? (await own_version());
  }

  /**
   * Opens a new session file under `session_dir` for runs to record into (the caller closes it).
   * Best-effort: resolves with null after a warning when it cannot be created.
   */
  async create_session(
    options: { parent_session_id?: string } = {},
  ): Promise<SessionHandle | null> {
    try {
      const store = session_store_of(this.config);
      const registry = this.#session_registry;
      if (registry !== undefined) await remember_session_dir(registry, this.config.session_dir);
      return await store.create({
        ...(options.parent_session_id === undefined
          ? {}
          : { parent_session_id: options.parent_session_id }),
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
    const history = options.history ?? [];
    // Each run has its own emitter, forwarded to the shared one, so runs in parallel (a gateway
    // serving several chats) never record or count each other's events.
    const run_emitter = new AgentEmitter();
    run_emitter.on((event) => this.emitter.emit(event));
    if (options.on_event) run_emitter.on(options.on_event);
    const usage_total = empty_usage();
    run_emitter.on(collect_usage(usage_total));
    const prices = await this.price_book();
    let cost_usd: number | null = 0;
    run_emitter.on((event) => {
      if (event.type !== 'llm_end') return;
      const cost = prices.cost(event.usage ?? empty_usage(), event.provider, event.model);
      cost_usd = add_cost(cost_usd, cost);
    });
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
          price: (usage, provider, model) => prices.cost(usage, provider, model),
          ...(options.request_id === undefined ? {} : { request_id: options.request_id }),
        })
      : null;
    const checkpoints = this.#checkpoints.for_run(options, handle, warn);
    const remembered = this.remembered_answers(handle);
    const hook_session: HookSession = {
      handle,
      session_id: handle?.id ?? `run-${process.pid}-${Date.now().toString(36)}`,
    };
    // the loop compresses on its own: PreCompact hears it (it cannot hold the loop back)
    run_emitter.on((event) => {
      if (event.type !== 'compress_start') return;
      this.#background(
        this.hooks.run(
          'PreCompact',
          { trigger: 'auto', custom_instructions: '' },
          { session: hook_session, match: ['auto'] },
        ),
      );
    });
    // the run's approval mode: an approved plan (exit_plan_mode) moves it on
    const approval = { mode: options.approval_mode ?? this.config.permissions.mode ?? 'yolo' };
    const allowed =
      options.allowed_tools === undefined ? undefined : new Set(options.allowed_tools);
    try {
      const prompt = await run_prompt_hooks(this.hooks, {
        input: options.input,
        history,
        session: hook_session,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      if (prompt.blocked !== undefined) {
        warn(`a UserPromptSubmit hook blocked the prompt: ${prompt.blocked}`);
        return {
          outcome: {
            messages: [...history],
            final: `The prompt was blocked by a UserPromptSubmit hook: ${prompt.blocked}`,
            last_result: null,
            turns_used: 0,
            stopped_reason: 'final',
          },
          transcript: [...history],
          usage_total,
          cost_usd: 0,
          session_path: handle?.path ?? null,
        };
      }
      const seed: Message[] = [
        ...history,
        { role: 'user', content: with_images(prompt.input, options.images ?? []) },
      ];
      const chain_chat = this.#chats.chat_for(options.model, options.on_provider_event);
      // the session id keys the provider's prompt cache (OpenAI `prompt_cache_key`)
      const cache_key = handle?.id;
      const keyed: ChatFn =
        cache_key === undefined
          ? chain_chat
          : (messages, tools, chat_options) =>
              chain_chat(messages, tools, { ...chat_options, cache_key });
      const limits = await budget_limits(this.config, this.#day_spent, options, handle);
      const first = this.resolve_model(options.model)?.[0] ?? config.providers[0];
      const chat: ChatFn =
        limits.length === 0
          ? keyed
          : guard_budget(keyed, {
              ledger: this.budget_ledger,
              limits,
              prices,
              provider: first?.kind ?? 'unknown',
              model: first?.model ?? 'unknown',
              max_tokens: first?.max_tokens ?? 8192,
              emitter: run_emitter,
            });
      const deps = {
        chat,
        tools: this.executor,
        // read at each run, so a tool an MCP server added or changed since is offered
        definitions:
          allowed === undefined
            ? this.registry.definitions()
            : this.registry.definitions().filter((definition) => allowed.has(definition.name)),
        emitter: run_emitter,
        tool_context: {
          [PERMISSION_GATE_FIELD]: this.#run_gate(options, handle, remembered, warn, approval),
          [SKILL_GRANTS_FIELD]: skill_grants(remembered, this.trusted, warn),
          [HOOK_SESSION_FIELD]: hook_session,
          [APPROVAL_MODE_FIELD]: () => approval.mode,
          [SUBAGENT_FIELD]: new SubagentRunner({
            agent: this,
            depth: options.subagent_depth ?? 0,
            parent: handle,
            usage_total,
            on_warning: warn,
          }),
          ...(allowed === undefined ? {} : { [ALLOWED_TOOLS_FIELD]: allowed }),
          ...(checkpoints === undefined ? {} : { [CHECKPOINTS_FIELD]: checkpoints }),
          ...options.tool_context,
          work_dir: config.work_dir,
          env_passthrough: config.env_passthrough,
          // so that git_commit never stages the transcripts, wherever they are
          session_dir: config.session_dir,
        },
      };
      const params = {
        max_turns: config.max_turns,
        system_prompt: options.system_prompt ?? prepared.system_prompt,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        context_window: config.context_window,
        // the task list outlives a compression: the summary carries it
        compression: { ...config.compression, carry: carry_todos },
        ...(options.take_steering === undefined ? {} : { take_steering: options.take_steering }),
        ...(options.restartable_stream === true ? { restartable_stream: true } : {}),
        // reads (and fetches, and subagents) run at once; a write or a command makes the turn's
        // calls run in order, as the model wrote them
        concurrent_tool: (name: string) => tool_kind(name) === 'read' || name === 'web_fetch',
      };
      const outcome = await continue_while_stop_hooks_block(
        this.hooks,
        await run_conversation(deps, seed, params),
        {
          session: hook_session,
          max_turns: config.max_turns,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          run_again: (next, max_turns) => run_conversation(deps, next, { ...params, max_turns }),
        },
      );
      return {
        outcome,
        transcript: outcome.messages,
        usage_total,
        cost_usd,
        session_path: handle?.path ?? null,
      };
    } finally {
      if (checkpoints !== undefined) {
        await checkpoints.finish();
        this.#checkpoints.prune(warn);
      }
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
    if (await this.hooks.has('PreCompact')) {
      await this.hooks.run(
        'PreCompact',
        { trigger: 'manual', custom_instructions: '' },
        {
          session: { handle: null, session_id: 'compact' },
          match: ['manual'],
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        },
      );
    }
    return compress_messages(history, this.#chats.chat_for(options.model), {
      keep_recent: this.config.compression.keep_recent,
      carry: carry_todos,
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
    remembered: RememberedAnswers,
    warn: (text: string) => void,
    state: { mode: ApprovalMode },
  ): unknown {
    if (options.tool_context?.[PERMISSION_GATE_FIELD] !== undefined) return undefined;
    const given = options.approver;
    // a person is about to be asked: Claude Code's Notification event
    const approver: Approver | null =
      given === undefined
        ? null
        : (request, signal) => {
            this.#background(
              this.hooks.run(
                'Notification',
                { message: `Lich needs your permission: ${request.title}` },
                { session: { handle, session_id: handle?.id ?? 'none' } },
              ),
            );
            return given(request, signal);
          };
    return session_permission_gate({
      policy: this.permissions,
      mode: () => state.mode,
      set_mode: (mode) => {
        state.mode = mode;
        options.on_approval_mode?.(mode);
      },
      approver: () => approver,
      remembered,
      handle,
      on_warning: warn,
      preview: call_preview(this.registry, this.config.work_dir),
      trusted: this.trusted,
    });
  }

  /**
   * Attaches the files a prompt names as `@path` (C31), read through this agent's `read_file`
   * (its guard and masked paths); nothing when `read_file` is not among the enabled tools.
   * Never rejects.
   */
  async attach_file_mentions(text: string): Promise<AttachedMentions> {
    if (!text.includes('@') || !this.registry.has('read_file')) {
      return { text, attached: [], images: [], skipped: [] };
    }
    const { existsSync, statSync } = await import('node:fs');
    const { isAbsolute, resolve } = await import('node:path');
    const root = this.config.work_dir;
    return attach_file_mentions(
      text,
      (path) => {
        const full = resolve(root, path);
        return existsSync(full) && !statSync(full).isDirectory();
      },
      async (path) => {
        // a picture the person named by its full path (dropped or pasted into the terminal) is
        // theirs to send, as `--image` is; anything else goes through read_file and its guard
        if (isAbsolute(path) && PICTURE_NAME.test(path)) {
          const { read_image_file } = await import('./images/read_image_file.js');
          const picture = await read_image_file(path, root);
          return { ok: true, output: '', images: [picture], duration_ms: 0 };
        }
        return this.executor.execute('read_file', { path }, { work_dir: root });
      },
    );
  }

  /**
   * How this agent's commands run: `bwrap` or `sandbox-exec` when a sandbox starts here, `none`
   * when none can, `off` when the config turns it off. Looked up once per process; never rejects.
   */
  sandbox_kind(): Promise<string> {
    if (this.config.sandbox.mode === 'off') return Promise.resolve('off');
    this.#sandbox_kind ??= probe_sandbox({ env: this.#env as NodeJS.ProcessEnv })
      .then(
        (support) => support.kind ?? 'none',
        () => 'none',
      )
      .then((kind) => {
        this.#sandbox_known = kind;
        return kind;
      });
    return this.#sandbox_kind;
  }

  /** `sandbox_kind` when it is already known, without waiting; else undefined. */
  sandbox_kind_now(): string | undefined {
    return this.config.sandbox.mode === 'off' ? 'off' : this.#sandbox_known;
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
    const plugins = await this.#plugins?.catch(() => undefined);
    await plugins?.close().catch(() => undefined);
  }
}
