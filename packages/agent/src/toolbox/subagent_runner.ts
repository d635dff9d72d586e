import {
  type AgentEvent,
  add_usage,
  type ToolOutput,
  type ToolRunContext,
  type Usage,
} from '@lich/core';
import type { SessionHandle } from '@lich/session';
import type { AgentRunOptions, AgentRunResult } from '../agent_options.js';
import type { AgentConfig } from '../config/config_schema.js';
import { PERMISSION_GATE_FIELD } from '../permissions/permission_gate.js';
import { prompt_environment } from '../system_prompt/environment.js';
import { compose_system_prompt } from '../system_prompt/system_prompt.js';
import { APPROVAL_MODE_FIELD, EXIT_PLAN_TOOL } from './exit_plan_mode.js';
import { find_subagent_types, type SubagentType } from './subagent_types.js';

/** The name of the tool that starts subagents. */
export const TASK_TOOL = 'task';

/** The field of a tool call's context holding the run's `SubagentRunner`. */
export const SUBAGENT_FIELD = 'subagents';

/** The field of a tool call's context a surface puts its subagent listener in. */
export const SUBAGENT_EVENTS_FIELD = 'on_subagent';

/**
 * What a surface hears of a subagent: its start; what it does (`activity`: a tool call it
 * started, or `tool: null` when it asks the model again); its end with its usage.
 */
export type SubagentEvent = {
  /**
   * How deep the child is: 1 for a child of the session's own run, 2 for a child of that child…
   * A child's `completed` usage and dollars include its own children's, which report at the next
   * depth: a total counts the depth-1 completions only.
   */
  depth: number;
} & (
  | {
      type: 'started';
      tool_call_id: string;
      session_id: string | null;
      parent_session_id: string | null;
      description: string;
      subagent_type: string;
    }
  | {
      type: 'activity';
      tool_call_id: string;
      session_id: string | null;
      parent_session_id: string | null;
      /** The tool the child just started, or null: it is waiting for the model. */
      tool: string | null;
      /** The tool call's arguments (absent with `tool: null`). */
      args?: unknown;
      /** How many tool calls the child has started so far. */
      tool_count: number;
    }
  | {
      type: 'completed';
      tool_call_id: string;
      session_id: string | null;
      parent_session_id: string | null;
      ok: boolean;
      stopped_reason: string;
      usage: Usage;
      /**
       * What the child's model calls cost in dollars, its own children's included; null when one
       * had no known price.
       */
      cost_usd: number | null;
    }
);

/** What the runner needs of the Agent. */
export interface SubagentAgent {
  readonly config: AgentConfig;
  readonly tool_names: string[];
  run(options: AgentRunOptions): Promise<AgentRunResult>;
  create_session(options?: { parent_session_id?: string }): Promise<SessionHandle | null>;
  resolve_model(model?: string): unknown;
  /** The project's instructions (AGENTS.md) every run carries, and the prompt's clock. */
  subagent_context(signal?: AbortSignal): Promise<{ instructions: string; now?: Date }>;
}

/** The job the model hands to a subagent. */
export interface TaskRequest {
  description: string;
  prompt: string;
  subagent_type?: string | undefined;
}

/**
 * The subagents of one run: each `task` call becomes a child run of the same Agent with a fresh
 * history, the type's system prompt (its role, then the project's instructions, AGENTS.md, as
 * the parent has them) and tools, the parent's permission gate (policy, mode and
 * approver), its own session file (with `parent_session_id`), and the parent's abort signal.
 *
 * Contract: at most `subagents.max_concurrent` children work at once (the rest wait, in call
 * order), at most `max_per_run` start in all, none starts at depth `max_depth`; the child's usage
 * is added to the parent's `usage_total` and its dollars to the parent's cost (`on_child_cost`);
 * only the child's final answer is returned; `run` never rejects.
 */
export class SubagentRunner {
  readonly #agent: SubagentAgent;
  readonly #depth: number;
  readonly #parent: SessionHandle | null;
  readonly #usage_total: Usage;
  readonly #on_child_cost: (cost_usd: number | null) => void;
  readonly #on_warning: (text: string) => void;
  #types: Promise<SubagentType[]> | undefined;
  #active = 0;
  #started = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(options: {
    agent: SubagentAgent;
    depth: number;
    parent: SessionHandle | null;
    usage_total: Usage;
    /** Hears what each child's run cost (its own children's included), for the parent's total. */
    on_child_cost: (cost_usd: number | null) => void;
    on_warning: (text: string) => void;
  }) {
    this.#agent = options.agent;
    this.#depth = options.depth;
    this.#parent = options.parent;
    this.#usage_total = options.usage_total;
    this.#on_child_cost = options.on_child_cost;
    this.#on_warning = options.on_warning;
  }

  /** The types the model may name (read once per run). */
  types(): Promise<SubagentType[]> {
    const { config } = this.#agent;
    this.#types ??= find_subagent_types(config.work_dir, {
      import_claude: config.subagents.import_claude_agents,
      on_skip: (path, reason) => this.#on_warning(`subagent ${path} was not read: ${reason}`),
    });
    return this.#types;
  }

  async #slot(signal: AbortSignal): Promise<boolean> {
    if (this.#active < this.#agent.config.subagents.max_concurrent) {
      this.#active += 1;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const go = () => {
        signal.removeEventListener('abort', stop);
        this.#active += 1;
        resolve(true);
      };
      const stop = () => {
        const index = this.#waiting.indexOf(go);
        if (index !== -1) this.#waiting.splice(index, 1);
        resolve(false);
      };
      this.#waiting.push(go);
      signal.addEventListener('abort', stop, { once: true });
    });
  }

  #release(): void {
    this.#active -= 1;
    this.#waiting.shift()?.();
  }

  #tools(type: SubagentType): string[] {
    const { max_depth } = this.#agent.config.subagents;
    const available = this.#agent.tool_names;
    const wanted = type.tools ?? available;
    return wanted.filter(
      (name) =>
        available.includes(name) &&
        name !== EXIT_PLAN_TOOL &&
        (name !== TASK_TOOL || this.#depth + 1 < max_depth),
    );
  }

  /** Runs one `task` call. See the class contract. */
  async run(request: TaskRequest, context: ToolRunContext): Promise<ToolOutput> {
    const { max_depth, max_per_run } = this.#agent.config.subagents;
    if (this.#depth >= max_depth) {
      return failure(
        `Subagents cannot start subagents here (subagents.max_depth is ${max_depth}). Do the job yourself.`,
      );
    }
    if (this.#started >= max_per_run) {
      return failure(
        `This run already started ${max_per_run} subagents (subagents.max_per_run). Finish with what you have.`,
      );
    }
    const types = await this.types();
    const name = request.subagent_type ?? 'general';
    const type = types.find((entry) => entry.name === name);
    if (type === undefined) {
      return failure(
        `There is no subagent type '${name}'. Known: ${types.map((entry) => entry.name).join(', ')}.`,
      );
    }
    this.#started += 1;
    const { signal } = context;
    if (!(await this.#slot(signal))) return failure('The subagent was stopped before it started.');
    let handle: SessionHandle | null = null;
    const on_event = context[SUBAGENT_EVENTS_FIELD] as ((event: SubagentEvent) => void) | undefined;
    const tool_call_id = context.tool_call_id ?? '';
    const parent_session_id = this.#parent?.id ?? null;
    const depth = this.#depth + 1;
    try {
      handle =
        this.#parent === null
          ? null
          : await this.#agent.create_session({ parent_session_id: this.#parent.id });
      const session_id = handle?.id ?? null;
      on_event?.({
        type: 'started',
        depth,
        tool_call_id,
        session_id,
        parent_session_id,
        description: request.description,
        subagent_type: type.name,
      });
      const model =
        type.model !== undefined && this.#agent.resolve_model(type.model) !== null
          ? type.model
          : undefined;
      // the type's body is the child's role; the project's instructions (AGENTS.md) still
      // apply to it, as they do to the parent, after the role and before the environment
      const { instructions, now } = await this.#agent.subagent_context(signal);
      let tool_count = 0;
      const said = { depth, tool_call_id, session_id, parent_session_id };
      const result = await this.#agent.run({
        input: request.prompt,
        // what the child does, for a surface that shows it under the parent's `task` call
        ...(on_event === undefined
          ? {}
          : {
              on_event: (event: AgentEvent) => {
                if (event.type === 'tool_call_start') {
                  tool_count += 1;
                  const { name } = event.call;
                  on_event({ type: 'activity', ...said, tool: name, args: event.args, tool_count });
                } else if (event.type === 'llm_start') {
                  on_event({ type: 'activity', ...said, tool: null, tool_count });
                }
              },
            }),
        session: handle ?? false,
        signal,
        system_prompt: compose_system_prompt({
          base: type.prompt,
          lich_text: true,
          surface: 'api',
          instructions,
          environment: prompt_environment({
            work_dir: this.#agent.config.work_dir,
            ...(now === undefined ? {} : { now }),
          }),
        }),
        allowed_tools: this.#tools(type),
        subagent_depth: this.#depth + 1,
        ...(model === undefined ? {} : { model }),
        // the parent's gate: the same policy, mode and approver
        tool_context: {
          [PERMISSION_GATE_FIELD]: context[PERMISSION_GATE_FIELD],
          [APPROVAL_MODE_FIELD]: context[APPROVAL_MODE_FIELD],
          ...(on_event === undefined ? {} : { [SUBAGENT_EVENTS_FIELD]: on_event }),
        },
      });
      Object.assign(this.#usage_total, add_usage(this.#usage_total, result.usage_total));
      this.#on_child_cost(result.cost_usd);
      const { stopped_reason, final } = result.outcome;
      on_event?.({
        type: 'completed',
        depth,
        tool_call_id,
        session_id,
        parent_session_id,
        ok: stopped_reason === 'final' && (final ?? '') !== '',
        stopped_reason,
        usage: result.usage_total,
        cost_usd: result.cost_usd,
      });
      if (stopped_reason === 'aborted') return failure('The subagent was stopped.');
      const answer = (final ?? '').trim();
      if (answer === '')
        return failure(`The subagent ended (${stopped_reason}) without an answer.`);
      const from = session_id === null ? '' : ` (session ${session_id})`;
      return `Subagent '${type.name}' answered${from}:\n\n${answer}`;
    } catch (error) {
      if (signal.aborted) return failure('The subagent was stopped.');
      return failure(
        `The subagent failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      await handle?.close().catch(() => undefined);
      this.#release();
    }
  }
}

function failure(text: string): ToolOutput {
  return { ok: false, output: text, error: text };
}
