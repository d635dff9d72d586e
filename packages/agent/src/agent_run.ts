import type { ChatFn } from '@lich/core';
import { AgentEmitter, empty_usage, type Message, run_conversation, with_images } from '@lich/core';
import { attach_recorder, type SessionRecorder } from '@lich/session';
import type { Agent } from './agent.js';
import type { AgentRunOptions, AgentRunResult } from './agent_options.js';
import type { Prepared } from './agent_prepare.js';
import type { AgentCheckpoints } from './checkpoints/agent_checkpoints.js';
import { CHECKPOINTS_FIELD } from './checkpoints/checkpoint_hook.js';
import { collect_usage } from './collect_usage.js';
import { guard_budget } from './cost/budget_guard.js';
import { budget_limits } from './cost/budget_limits.js';
import { add_cost } from './cost/model_price.js';
import { priced_chat } from './cost/priced_chat.js';
import { HOOK_SESSION_FIELD, type HookSession } from './hooks/hook_dispatcher.js';
import { continue_while_stop_hooks_block, run_prompt_hooks } from './hooks/prompt_hooks.js';
import type { ModelChats } from './model_chats.js';
import { PERMISSION_GATE_FIELD } from './permissions/permission_gate.js';
import { tool_kind } from './permissions/permission_rules.js';
import { run_permission_gate } from './permissions/run_permission_gate.js';
import { skill_grants } from './skills/skill_grants.js';
import { SKILL_GRANTS_FIELD } from './skills/skill_tool.js';
import { ALLOWED_TOOLS_FIELD } from './toolbox/allowance_hook.js';
import { APPROVAL_MODE_FIELD } from './toolbox/exit_plan_mode.js';
import { SUBAGENT_FIELD, SubagentRunner } from './toolbox/subagent_runner.js';
import { carry_todos } from './toolbox/todo_list.js';

/** What a run takes from its agent besides the agent's public parts. */
export interface RunParts {
  agent: Agent;
  /** The agent's preparation (system prompt, instructions), done before the run. */
  prepared: Prepared;
  chats: ModelChats;
  /** What today's sessions spent before this process, read once per day key. */
  day_spent: Map<string, Promise<number>>;
  checkpoints: AgentCheckpoints;
  warn: (text: string) => void;
  /** Keeps a hook run that nobody waits for, so that `close` waits for it. */
  background: (running: Promise<unknown>) => void;
}

/**
 * Runs one user message of `parts.agent` to an answer (`Agent.run`): a per-run emitter forwarded
 * to the agent's (usage, cost, the session recorder), the prompt hooks, the chat with the
 * session's cache key and the run's budget, the tool context (permission gate, skill grants,
 * subagents, checkpoints), `run_conversation`, and the Stop hooks that may send it on.
 *
 * Contract: as `Agent.run`'s: `history` is never mutated; a model failure rejects with the
 * provider's error; an abort resolves with `stopped_reason: 'aborted'`; a prompt a
 * UserPromptSubmit hook blocks resolves with the hook's reason as the final text, no model call
 * made. The session the run opened itself is closed, and its checkpoints finished, however it
 * ends.
 */
export async function run_agent(
  parts: RunParts,
  options: AgentRunOptions,
): Promise<AgentRunResult> {
  const { agent, prepared } = parts;
  const { config } = agent;
  const history = options.history ?? [];
  // Each run has its own emitter, forwarded to the shared one, so runs in parallel (a gateway
  // serving several chats) never record or count each other's events.
  const run_emitter = new AgentEmitter();
  run_emitter.on((event) => agent.emitter.emit(event));
  if (options.on_event) run_emitter.on(options.on_event);
  const usage_total = empty_usage();
  run_emitter.on(collect_usage(usage_total));
  // The prices are loaded by the time a call ends (see `priced_chat`): each `llm_end` is priced.
  const price = agent.cost_of.bind(agent);
  let cost_usd: number | null = 0;
  run_emitter.on((event) => {
    if (event.type !== 'llm_end') return;
    const cost = price(event.usage ?? empty_usage(), event.provider, event.model);
    cost_usd = add_cost(cost_usd, cost);
  });
  const own_session = options.session === undefined;
  const handle =
    options.session === false
      ? null
      : options.session === undefined
        ? await agent.create_session()
        : options.session;
  const warn = options.on_warning ?? parts.warn;
  const recorder: SessionRecorder | null = handle
    ? attach_recorder(run_emitter, handle, {
        on_error: (error) =>
          warn(`session ${handle.path}: ${error instanceof Error ? error.message : error}`),
        price,
        ...(options.request_id === undefined ? {} : { request_id: options.request_id }),
      })
    : null;
  const checkpoints = parts.checkpoints.for_run(options, handle, warn);
  const remembered = agent.remembered_answers(handle);
  const hook_session: HookSession = {
    handle,
    session_id: handle?.id ?? `run-${process.pid}-${Date.now().toString(36)}`,
  };
  // the loop compresses on its own: PreCompact hears it (it cannot hold the loop back)
  run_emitter.on((event) => {
    if (event.type !== 'compress_start') return;
    parts.background(
      agent.hooks.run(
        'PreCompact',
        { trigger: 'auto', custom_instructions: '' },
        { session: hook_session, match: ['auto'] },
      ),
    );
  });
  // the run's approval mode: an approved plan (exit_plan_mode) moves it on
  const approval = { mode: options.approval_mode ?? config.permissions.mode ?? 'yolo' };
  const allowed = options.allowed_tools === undefined ? undefined : new Set(options.allowed_tools);
  try {
    const prompt = await run_prompt_hooks(agent.hooks, {
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
    const chain_chat = parts.chats.chat_for(options.model, options.on_provider_event);
    // the session id keys the provider's prompt cache (OpenAI `prompt_cache_key`)
    const cache_key = handle?.id;
    const keyed: ChatFn =
      cache_key === undefined
        ? chain_chat
        : (messages, tools, chat_options) =>
            chain_chat(messages, tools, { ...chat_options, cache_key });
    const limits = await budget_limits(config, parts.day_spent, options, handle);
    const first = agent.resolve_model(options.model)?.[0] ?? config.providers[0];
    const chat: ChatFn =
      limits.length === 0
        ? priced_chat(keyed, agent)
        : guard_budget(keyed, {
            ledger: agent.budget_ledger,
            limits,
            // a budget prices each call before making it: the catalog is loaded first
            prices: await agent.price_book(),
            provider: first?.kind ?? 'unknown',
            model: first?.model ?? 'unknown',
            max_tokens: first?.max_tokens ?? 8192,
            emitter: run_emitter,
          });
    const deps = {
      chat,
      tools: agent.executor,
      // read at each run, so a tool an MCP server added or changed since is offered
      definitions:
        allowed === undefined
          ? agent.registry.definitions()
          : agent.registry.definitions().filter((definition) => allowed.has(definition.name)),
      emitter: run_emitter,
      tool_context: {
        [PERMISSION_GATE_FIELD]: run_permission_gate({
          run: options,
          handle,
          remembered,
          on_warning: warn,
          state: approval,
          policy: agent.permissions,
          registry: agent.registry,
          work_dir: config.work_dir,
          trusted: agent.trusted,
          // a person is about to be asked: Claude Code's Notification event
          on_asking: (request) =>
            parts.background(
              agent.hooks.run(
                'Notification',
                { message: `Lich needs your permission: ${request.title}` },
                { session: { handle, session_id: handle?.id ?? 'none' } },
              ),
            ),
        }),
        [SKILL_GRANTS_FIELD]: skill_grants(remembered, agent.trusted, warn),
        [HOOK_SESSION_FIELD]: hook_session,
        [APPROVAL_MODE_FIELD]: () => approval.mode,
        [SUBAGENT_FIELD]: new SubagentRunner({
          agent,
          depth: options.subagent_depth ?? 0,
          parent: handle,
          usage_total,
          on_child_cost: (cost) => {
            cost_usd = add_cost(cost_usd, cost);
          },
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
      agent.hooks,
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
      parts.checkpoints.prune(warn);
    }
    if (recorder) {
      recorder.detach();
      await recorder.idle();
    }
    if (handle && own_session) await handle.close();
  }
}
