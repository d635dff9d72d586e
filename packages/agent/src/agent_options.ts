import type { AgentListener, ChatFn, ImagePart, LoopOutcome, Message, Usage } from '@lich/core';
import type { RouterEvent } from '@lich/providers';
import type { SessionHandle } from '@lich/session';
import type { Tool } from '@lich/tools';
import type { CheckpointMarkInfo } from './checkpoints/run_checkpoints.js';
import type { AgentConfig } from './config/config_schema.js';
import type { BudgetLedger } from './cost/budget_ledger.js';
import type { ApprovalMode } from './host/session_host_types.js';
import type { Approver } from './permissions/permission_gate.js';
import type { PromptSurface } from './system_prompt/system_prompt.js';

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
  /**
   * Where budgets are reserved and settled: default one in this process's memory, shared by
   * every run of the agent. A PostgreSQL ledger (`@lich/store-postgres`) shares it across nodes.
   */
  budget_ledger?: BudgetLedger;
  /**
   * A file listing the session folders written to (`session_dirs_file`), for `lich usage --all`:
   * each new session adds its folder. Absent: nothing is listed.
   */
  session_registry?: string;
  /**
   * False: no checkpoints of the work dir, whatever `config.checkpoints` says (a gateway's work
   * dir is the bot's). Default: as the config says.
   */
  checkpoints?: boolean;
  /**
   * False: the price catalog (`@pydantic/genai-prices`) is never imported, and calls are priced
   * from `config.prices` alone (any other model's call costs `null`, unknown). For a caller that
   * shows no cost and records none, which then saves the catalog's import (some 40 ms of CPU and
   * 10 MiB of peak memory): the CLI's one-shot with `--no-session`, text output, no `-v` and no
   * budget. A budget prices from the same book, so keep the catalog where one may apply. Default
   * true.
   */
  price_catalog?: boolean;
  /**
   * True when the person trusts the work dir (`lich trust`, the first-run question, `--trust`):
   * then what the repository ships may act on its own — a project skill's `allowed-tools` are
   * granted when it loads, the hooks and command shell lines of the project run, and the
   * repository's config file may load plugins, start MCP servers and widen permissions and the
   * sandbox. Default false: project skills are still listed and loadable, but grant nothing and
   * run nothing by themselves, and `config.held_until_trusted` is applied (`config_for_trust`;
   * one warning lists what was held back), so `agent.config` is the config without them.
   */
  trusted?: boolean;
  /**
   * Where answers are read, for the answer style of the system prompt: `terminal` (default),
   * `chat` (a gateway), `editor` (ACP), `api` (serve's clients).
   */
  surface?: PromptSurface;
  /** The clock of the system prompt's date (tests); the system clock when absent. */
  now?: () => Date;
}

/** One run's input. */
export interface AgentRunOptions {
  /** The user's message. */
  input: string;
  /**
   * Pictures sent with `input` (a screenshot, a photo): the user message is then made of parts,
   * the text first. Each is scaled to the provider's limits when sent.
   */
  images?: readonly ImagePart[];
  /** Earlier messages of the conversation; never mutated. */
  history?: readonly Message[];
  /** Aborts the run: it ends with `stopped_reason: 'aborted'`. */
  signal?: AbortSignal;
  /**
   * The session to record into: a handle (shared across runs, e.g. a chat), `false` for none, or
   * absent to open a new session file for this run under `session_dir`.
   */
  session?: SessionHandle | false;
  /** The client's id of the prompt, recorded in the session (a run again with it is a retry). */
  request_id?: string;
  /** Hears this run's events only (the agent's emitter hears every run's). */
  on_event?: AgentListener;
  /**
   * Asked after each turn's tool results; the messages it returns go in before the next model
   * call (`LoopParams.take_steering`).
   */
  take_steering?: () => readonly Message[];
  /**
   * The caller buffers the answer and shows no text as it streams (`--json`, a pipe): a stream
   * cut mid-answer may then be retried from the start (`LoopParams.restartable_stream`).
   */
  restartable_stream?: boolean;
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
  /** This run's system prompt instead of the prepared one (a subagent's). */
  system_prompt?: string;
  /** Only these tools are offered and may run (a subagent's allowance); absent: all. */
  allowed_tools?: readonly string[];
  /** How deep in subagents this run is: 0 (absent) for a run a person started. */
  subagent_depth?: number;
  /** Hears the run's approval mode change (an approved plan moves `plan` on). */
  on_approval_mode?: (mode: ApprovalMode) => void;
  /** Asks a person when the policy says `ask`; absent, `ask` means deny (with how to allow). */
  approver?: Approver;
  /**
   * False: this run takes no checkpoint. Otherwise a run recorded in a session takes one before
   * its first change and one when it ends, when the agent's checkpoints are on.
   */
  checkpoints?: boolean;
  /** Hears each checkpoint this run takes (its id is recorded in the session as well). */
  on_checkpoint?: (mark: CheckpointMarkInfo) => void;
  /** Dollars the session may spend (`--max-budget-usd`), over `config.budget.session_usd`. */
  max_budget_usd?: number;
  /**
   * Gateways: who the run is for, so `budget.sender_day_usd` and `budget.conversation_usd` apply
   * (e.g. `telegram:42` and `telegram:chat:7`).
   */
  budget_scopes?: { sender?: string; conversation?: string };
}

/** What a run produced. */
export interface AgentRunResult {
  outcome: LoopOutcome;
  /** The whole conversation after the run: the history, the new message and the run's messages. */
  transcript: Message[];
  /** The summed usage of this run's model calls, its subagents' included. */
  usage_total: Usage;
  /**
   * What this run's model calls cost in dollars, its subagents' included; null when one had no
   * known price.
   */
  cost_usd: number | null;
  /** The session file written to, or null when the run was not recorded. */
  session_path: string | null;
}
