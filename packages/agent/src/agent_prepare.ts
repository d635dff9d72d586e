import { dirname } from 'node:path';
import type { ToolRegistry } from '@lich/tools';
import { user_config_path } from './config/config_file.js';
import { type AgentConfig, DEFAULT_SYSTEM_PROMPT } from './config/config_schema.js';
import { tool_allowed, unmatched_tool_patterns } from './permissions/tool_allowlist.js';
import {
  find_project_instructions,
  find_user_instructions,
  type ProjectInstructions,
  with_project_instructions,
} from './project_instructions.js';
import { SKILL_TOOL_NAME, skill_tool, skills_prompt } from './skills/skill_tool.js';
import type { SkillCatalog } from './skills/skill_types.js';
import { prompt_environment } from './system_prompt/environment.js';
import { compose_system_prompt, type PromptSurface } from './system_prompt/system_prompt.js';

/** What every run of an Agent starts from, set up once before the first model call. */
export interface Prepared {
  system_prompt: string;
  /**
   * The user's and the project's instructions (AGENTS.md) as rendered into `system_prompt`, or
   * '': what a subagent's prompt carries after its role.
   */
  instructions: string;
}

/** What `prepare_runs` works on. */
export interface PrepareTarget {
  config: AgentConfig;
  registry: ToolRegistry;
  env: Readonly<Record<string, string | undefined>>;
  /** Every tool name that existed before `tools_enabled` / `tools_disabled` filtered them. */
  known_tools: ReadonlySet<string>;
  /** Loads the config's plugins (once); rejects with a ConfigError. */
  load_plugins(): Promise<void>;
  /** Keeps the MCP attachment, so the agent can close it. */
  on_mcp(attachment: { close(): Promise<void> }): void;
  on_warning(text: string): void;
  /** The skills found (empty when `skills.enabled` is false); their warnings are not yet said. */
  skills(): Promise<SkillCatalog>;
  signal?: AbortSignal;
  /** Where answers are read (the answer style of the prompt); `terminal` when absent. */
  surface?: PromptSurface;
  /** The clock of the prompt's date; the system clock when absent. */
  now?: () => Date;
}

function enabled_mcp_servers(config: AgentConfig): boolean {
  if (config.tools_enabled !== undefined && config.tools_enabled.length === 0) return false;
  return Object.values(config.mcp_servers).some((server) => server.enabled !== false);
}

/**
 * Sets up what runs need, in order: plugins, MCP servers (`@lich/mcp` imported only when one is
 * enabled and `tools_enabled` is not empty), the tool lists' warnings (the registry itself admits
 * only tools the lists allow, from every source), then the user's and
 * the project's instructions (AGENTS.md) around the system prompt.
 * Rejects when a plugin cannot be loaded; a failed MCP server is a warning.
 */
export async function prepare_runs(target: PrepareTarget): Promise<Prepared> {
  const { config, registry } = target;
  await target.load_plugins();
  if (enabled_mcp_servers(config)) {
    const { attach_mcp } = await import('@lich/mcp');
    target.on_mcp(
      await attach_mcp(config.mcp_servers, registry, {
        ...(config.tools_enabled === undefined ? {} : { tools_enabled: config.tools_enabled }),
        work_dir: config.work_dir,
        on_warning: target.on_warning,
        ...(target.signal === undefined ? {} : { signal: target.signal }),
      }),
    );
  }
  const { tools_enabled, tools_disabled } = config;
  const catalog = await target.skills();
  for (const warning of catalog.warnings) target.on_warning(warning);
  let skill_tool_offered = false;
  if (catalog.skills.length > 0 && tool_allowed(SKILL_TOOL_NAME, tools_enabled, tools_disabled)) {
    if (!registry.has(SKILL_TOOL_NAME)) registry.register(skill_tool(catalog.skills));
    skill_tool_offered = registry.has(SKILL_TOOL_NAME);
  }
  const registered = registry.names();
  for (const warning of unmatched_tool_patterns(
    [...new Set([...target.known_tools, ...registered, ...registry.refused_names()])],
    {
      ...(tools_enabled === undefined ? {} : { tools_enabled }),
      ...(tools_disabled === undefined ? {} : { tools_disabled }),
    },
  )) {
    target.on_warning(warning);
  }
  const on_skip = (path: string, reason: string) =>
    target.on_warning(`instructions ${path} were not read: ${reason}`);
  const user = await find_user_instructions(dirname(user_config_path(target.env)), { on_skip });
  const instructions: ProjectInstructions[] = [
    ...(user ? [user] : []),
    ...(await find_project_instructions(config.work_dir, { on_skip })),
  ];
  // AGENTS.md rendered alone under its heading, then the skills (the same text every turn: only
  // names and descriptions), between the stable parts and the environment
  const rendered = with_project_instructions('', instructions, config.work_dir).trim();
  const skills_section = skills_prompt(catalog.skills, skill_tool_offered);
  const after_instructions = [rendered, skills_section].filter((part) => part !== '').join('\n\n');
  return {
    instructions: rendered,
    // --append-system-prompt last: after AGENTS.md, as its help says
    system_prompt: compose_system_prompt({
      base: config.system_prompt,
      lich_text: config.system_prompt === DEFAULT_SYSTEM_PROMPT,
      surface: target.surface ?? 'terminal',
      instructions: after_instructions,
      ...(config.append_system_prompt === undefined ? {} : { append: config.append_system_prompt }),
      environment: prompt_environment({
        work_dir: config.work_dir,
        ...(target.now === undefined ? {} : { now: target.now() }),
      }),
    }),
  };
}
