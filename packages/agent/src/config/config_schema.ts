import { z } from 'zod';
import {
  CHECKPOINTS_SCHEMA,
  type CheckpointSettings,
  DEFAULT_CHECKPOINTS,
} from '../checkpoints/checkpoints_schema.js';
import {
  BUDGET_SCHEMA,
  type BudgetConfig,
  PRICES_SCHEMA,
  type PricesConfig,
} from '../cost/cost_schema.js';
import { HOOKS_SCHEMA, type HookSet } from '../hooks/hooks_schema.js';
import {
  DEFAULT_PERMISSIONS,
  PERMISSIONS_SCHEMA,
  type PermissionsSettings,
} from '../permissions/permissions_schema.js';
import { DEFAULT_SKILLS, SKILLS_SCHEMA, type SkillsSettings } from '../skills/skills_schema.js';
import {
  DEFAULT_SUBAGENTS,
  SUBAGENTS_SCHEMA,
  type SubagentsSettings,
} from '../toolbox/subagents_schema.js';
import type { HeldUntilTrusted } from '../trust/config_for_trust.js';
import { base_url_problem } from './base_url_check.js';
import { MCP_SERVERS_SCHEMA } from './mcp_servers_schema.js';

/** The provider kinds Lich builds in (more can be registered with the router in code). */
export const BUILT_IN_KIND_NAMES: readonly string[] = Object.freeze([
  'openai_compat',
  'anthropic',
  'ollama',
  'gemini',
  'bedrock',
]);

/** A provider's base URL: `http(s)://…` or `host:port`; other schemes are refused. */
export const BASE_URL_SCHEMA = z
  .string()
  .superRefine((value, context) => {
    const problem = base_url_problem(value);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  })
  .meta({ pattern: '^(https?://|[^\\s/:@]+:[0-9]+(/|$))' });

/** The model a provider kind uses when the config names none. */
export const DEFAULT_MODELS: Readonly<Record<string, string>> = Object.freeze({
  openai_compat: 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-5',
  ollama: 'llama3.2',
  gemini: 'gemini-2.5-flash',
  bedrock: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
});

/** The environment variable holding a kind's API key when the config names none. */
export const DEFAULT_API_KEY_ENVS: Readonly<Record<string, string>> = Object.freeze({
  openai_compat: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
});

/** Further variables a kind's key is read from when its default one is unset, in order. */
const FALLBACK_API_KEY_ENVS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  gemini: ['GOOGLE_API_KEY'],
  openai_compat: ['AZURE_OPENAI_API_KEY'],
});

/**
 * The variable a kind's API key is read from when the config names none: the default one
 * (`GEMINI_API_KEY`), or the first fallback that is set in `env` (`GOOGLE_API_KEY`). Pure.
 */
export function default_key_env(
  kind: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const first = DEFAULT_API_KEY_ENVS[kind];
  if (first === undefined || env[first]) return first;
  return FALLBACK_API_KEY_ENVS[kind]?.find((name) => env[name]) ?? first;
}

/** The system prompt used when the config sets none. */
export const DEFAULT_SYSTEM_PROMPT = [
  'You are Lich, a careful software agent working in the folder the user opened.',
  'Use the tools to look before you act: read files before you edit them, and run the tests after.',
  'Paths are relative to the work folder. Keep answers short and say what you changed.',
].join('\n');

/** One entry of the failover chain. */
export const PROVIDER_ENTRY_SCHEMA = z
  .object({
    kind: z
      .string()
      .min(1)
      .describe(
        'The provider kind: openai_compat, anthropic, ollama, gemini, bedrock, or a contributed one.',
      ),
    model: z.string().min(1).describe('The model name the provider expects.'),
    base_url: BASE_URL_SCHEMA.optional().describe(
      "The API's base URL (http:// or https://); each kind has its default.",
    ),
    api_key_env: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The environment variable holding the API key (default: OPENAI_API_KEY, ANTHROPIC_API_KEY).',
      ),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe('Extra HTTP headers sent with every request.'),
    max_tokens: z.int().positive().optional().describe('Output token limit per call.'),
    temperature: z.number().min(0).max(2).optional(),
    idle_timeout_ms: z
      .int()
      .positive()
      .optional()
      .describe('Give up on a stream that sends nothing for this long.'),
    options: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Kind-specific settings, passed to the provider untouched.'),
    cache: z
      .object({
        enabled: z
          .boolean()
          .optional()
          .describe(
            'Ask for prompt caching (Anthropic cache_control breakpoints, OpenAI prompt_cache_key). Default: on for anthropic and api.openai.com.',
          ),
        ttl: z
          .enum(['5m', '1h'])
          .optional()
          .describe(
            'How long a cached prefix lives (Anthropic): 5m (default) or 1h for gateways and long sessions (writes cost 2x input instead of 1.25x).',
          ),
      })
      .optional()
      .describe('Prompt caching.'),
    vision: z
      .boolean()
      .optional()
      .describe(
        'false when the model takes no pictures: a prompt with one is refused before it is sent (the next provider of the chain is tried). Default true.',
      ),
  })
  .describe('One provider of the failover chain.');

/** When and how the history is compressed. */
export const COMPRESSION_SCHEMA = z
  .object({
    enabled: z.boolean().default(true).describe('Compress the history when it grows too long.'),
    threshold: z
      .number()
      .gt(0)
      .max(1)
      .default(0.75)
      .describe('Compress when the estimated tokens pass this share of context_window.'),
    keep_recent: z
      .int()
      .min(1)
      .default(8)
      .describe('How many of the latest messages are always kept verbatim.'),
  })
  .describe('History compression.');

/** How `terminal` and `run_tests` confine commands (read by `@lich/tools`' `Sandbox`). */
export const SANDBOX_SCHEMA = z
  .object({
    mode: z
      .enum(['auto', 'required', 'off'])
      .default('auto')
      .describe(
        'auto: sandbox commands where the OS allows it, else run them with one warning; required: refuse commands that cannot be sandboxed; off: never sandbox (yolo does not turn it off).',
      ),
    network: z
      .union([z.boolean(), z.array(z.string().min(1))])
      .default(false)
      .describe(
        'false: no network for commands; true: the network; a list (host, *.domain, host:port): only these hosts, through a proxy in HTTPS_PROXY. web_fetch reaches a listed host even at a private address, and its listed port.',
      ),
    writable: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Folders commands may write besides the work dir (~/ and work-dir-relative allowed).',
      ),
    env_passthrough: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Environment variables passed to commands besides the base set (PATH, HOME, LANG, LC_*, TERM, TMPDIR, CI, toolchain folders); a name ending in * passes every name it starts.',
      ),
    allow_unix_sockets: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Unix sockets commands may connect to (docker, a dev database); a folder allows the sockets under it. Empty: none.',
      ),
    deny_read: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Paths commands and the file tools may not read, besides the credential stores kept from them by default (~/.ssh, ~/.aws, ~/.netrc…).',
      ),
    allow_read: z
      .array(z.string().min(1))
      .default([])
      .describe('Paths of the deny lists made readable again (a folder lifts what is under it).'),
    max_processes: z
      .int()
      .min(0)
      .default(1024)
      .describe(
        'Processes and threads one command may have at once (0: no limit); a command that stays at the limit is stopped.',
      ),
  })
  .describe('The sandbox of terminal and run_tests commands.');

/** The `sandbox` key's default: every field at its default. */
export const DEFAULT_SANDBOX_SETTINGS = Object.freeze({
  mode: 'auto' as const,
  network: false,
  writable: [],
  env_passthrough: [],
  allow_unix_sockets: [],
  deny_read: [],
  allow_read: [],
  max_processes: 1024,
});

/** The settings every config source may give; absent keys take their default. */
export const CONFIG_SHAPE = {
  providers: z
    .array(PROVIDER_ENTRY_SCHEMA)
    .default([])
    .describe(
      'The ordered failover chain. Empty: taken from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, a local Ollama).',
    ),
  max_turns: z.int().min(1).max(10_000).default(50).describe('Model calls allowed per run.'),
  system_prompt: z.string().default(DEFAULT_SYSTEM_PROMPT).describe('The system prompt.'),
  append_system_prompt: z
    .string()
    .optional()
    .describe(
      'Text added at the very end of the system prompt, after the project instructions (AGENTS.md).',
    ),
  tools_enabled: z
    .array(z.string())
    .optional()
    .describe('Tool names the model may use. Absent: all builtins. Empty: no tools and no MCP.'),
  tools_disabled: z
    .array(z.string())
    .optional()
    .describe(
      'Tool names (with * patterns) the model may not use, even where tools_enabled allows them.',
    ),
  mcp_servers: MCP_SERVERS_SCHEMA.default({}).describe('MCP servers whose tools are added.'),
  plugins: z
    .array(z.string().min(1))
    .default([])
    .describe("Plugins: module paths or package names; 'gatekeeper' is built in."),
  session_dir: z
    .string()
    .min(1)
    .optional()
    .describe('Where transcripts go (default <work_dir>/.lich/sessions); relative to work_dir.'),
  context_window: z
    .int()
    .min(1024)
    .default(128_000)
    .describe("The model's context window in tokens, for compression decisions."),
  compression: COMPRESSION_SCHEMA.default({ enabled: true, threshold: 0.75, keep_recent: 8 }),
  env_passthrough: z
    .array(z.string().min(1))
    .default([])
    .describe('Deprecated: use sandbox.env_passthrough (the two lists are joined).'),
  permissions: PERMISSIONS_SCHEMA.default({ ...DEFAULT_PERMISSIONS, allow: [], ask: [], deny: [] }),
  sandbox: SANDBOX_SCHEMA.default({ ...DEFAULT_SANDBOX_SETTINGS }),
  checkpoints: CHECKPOINTS_SCHEMA.default({ ...DEFAULT_CHECKPOINTS }),
  skills: SKILLS_SCHEMA.default({ ...DEFAULT_SKILLS, import: [] }),
  hooks: HOOKS_SCHEMA.default({}),
  prices: PRICES_SCHEMA.default({}),
  budget: BUDGET_SCHEMA.default({}),
  subagents: SUBAGENTS_SCHEMA.default({ ...DEFAULT_SUBAGENTS }),
} as const;

/** A config file: every key optional, `$schema` allowed. Unknown keys are stripped (and warned). */
export const CONFIG_FILE_SCHEMA = z
  .object({
    $schema: z.string().optional().describe('The JSON Schema this file follows.'),
    ...CONFIG_SHAPE,
  })
  .partial()
  .describe('Lich configuration (.lich/config.json or ~/.config/lich/config.json).');

/** The merged settings before `work_dir` and `session_dir` are resolved. */
export const CONFIG_SCHEMA = z.object(CONFIG_SHAPE);

/** One entry of the failover chain, as configured. */
export type ProviderEntry = z.infer<typeof PROVIDER_ENTRY_SCHEMA>;

/** The `compression` key of the config, as parsed (defaults applied). */
export type CompressionConfig = z.infer<typeof COMPRESSION_SCHEMA>;

/** What a config file may hold. */
export type ConfigFile = z.input<typeof CONFIG_FILE_SCHEMA>;

/** The `sandbox` key of the config, as parsed (defaults applied). */
export type SandboxSettings = z.infer<typeof SANDBOX_SCHEMA>;

/** The MCP servers catalog as configured. */
export type McpServersConfig = z.infer<typeof MCP_SERVERS_SCHEMA>;

/**
 * The effective, frozen configuration an Agent runs with. `work_dir` is absolute and exists;
 * `session_dir` is absolute (derived as `<work_dir>/.lich/sessions` unless set).
 */
export interface AgentConfig {
  readonly work_dir: string;
  readonly providers: readonly Readonly<ProviderEntry>[];
  readonly max_turns: number;
  readonly system_prompt: string;
  /** Added last, after the project instructions (`--append-system-prompt`). */
  readonly append_system_prompt?: string;
  readonly tools_enabled?: readonly string[];
  readonly tools_disabled?: readonly string[];
  readonly mcp_servers: Readonly<McpServersConfig>;
  readonly plugins: readonly string[];
  readonly session_dir: string;
  readonly context_window: number;
  readonly compression: Readonly<CompressionConfig>;
  /** Deprecated spelling of `sandbox.env_passthrough`, joined into it. */
  readonly env_passthrough: readonly string[];
  /** Which tool calls run, ask or never run (`PermissionPolicy`). */
  readonly permissions: Readonly<PermissionsSettings>;
  readonly sandbox: Readonly<SandboxSettings>;
  /** Checkpoints of the work dir before each prompt's first change, for rewind. */
  readonly checkpoints: Readonly<CheckpointSettings>;
  /** Agent Skills: whether they are offered, and the other folders they are taken from. */
  readonly skills: Readonly<SkillsSettings>;
  /**
   * The `hooks` of each config source, in order (user file, then project file), each marked with
   * whether it is the person's or the repository's: a repository's run only in a trusted folder.
   */
  readonly hooks: readonly HookSet[];
  /** Model prices over the catalog, per million tokens. */
  readonly prices: Readonly<PricesConfig>;
  /** Spending limits; none by default. */
  readonly budget: Readonly<BudgetConfig>;
  /** What the `task` tool's subagents may do. */
  readonly subagents: Readonly<SubagentsSettings>;
  /**
   * What the repository's config file set that waits for the folder's trust (plugins, MCP servers
   * that start commands, permission and sandbox widenings…), with the values used until then;
   * absent when it sets none. An Agent built with `trusted: false` runs with them
   * (`config_for_trust`).
   */
  readonly held_until_trusted?: HeldUntilTrusted;
}

/** The top-level keys of the configuration, in display order. */
export const CONFIG_KEYS = Object.freeze(
  Object.keys(CONFIG_SHAPE),
) as readonly (keyof typeof CONFIG_SHAPE)[];
