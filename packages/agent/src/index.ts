export { nearest_word } from '@lich/tools';
export { Agent, type AgentOptions, type AgentRunOptions, type AgentRunResult } from './agent.js';
export { builtin_tool_names } from './builtin_tool_names.js';
export { checkpoint_store_of, prune_options } from './checkpoints/checkpoint_store_of.js';
export {
  CHECKPOINTS_SCHEMA,
  type CheckpointSettings,
  DEFAULT_CHECKPOINTS,
} from './checkpoints/checkpoints_schema.js';
export { session_is_open } from './checkpoints/open_sessions.js';
export { rewind_points } from './checkpoints/rewind_points.js';
export { type RewindTarget, rewind_session } from './checkpoints/rewind_session.js';
export {
  format_rewind_points,
  type ParsedRewindArgs,
  parse_rewind_args,
  rewind_summary,
} from './checkpoints/rewind_text.js';
export type {
  RewindConflictChoice,
  RewindFiles,
  RewindOutcome,
  RewindPoint,
  RewindRequest,
  RewindScope,
  RewoundPath,
} from './checkpoints/rewind_types.js';
export type { CheckpointMarkInfo } from './checkpoints/run_checkpoints.js';
export { WRITING_TOOLS } from './checkpoints/writing_tools.js';
export { ConfigError } from './config/config_error.js';
export {
  parse_cli_value,
  project_config_path,
  type ReadConfigResult,
  read_config_file,
  type SetConfigResult,
  set_config_value,
  user_config_path,
  write_config_file,
} from './config/config_file.js';
export { config_schema_path } from './config/config_json_schema.js';
export {
  type ConfigFlags,
  type ConfigSource,
  deep_freeze,
  type LoadConfigOptions,
  type LoadConfigResult,
  type LoadedConfig,
  load_config,
  make_config,
} from './config/config_load.js';
export { redact_config } from './config/config_redact.js';
export {
  type AgentConfig,
  BUILT_IN_KIND_NAMES,
  CONFIG_KEYS,
  type CompressionConfig,
  type ConfigFile,
  DEFAULT_SYSTEM_PROMPT,
  type McpServersConfig,
  type ProviderEntry,
} from './config/config_schema.js';
export {
  BUDGET_WARNING_SHARE,
  type BudgetGuardOptions,
  guard_budget,
} from './cost/budget_guard.js';
export {
  type BudgetLedger,
  type BudgetLimit,
  type BudgetReservation,
  MemoryBudgetLedger,
  type ReserveResult,
} from './cost/budget_ledger.js';
export type { BudgetConfig, PricesConfig } from './cost/cost_schema.js';
export { add_cost, cost_at, format_cost, type ModelPrice } from './cost/model_price.js';
export {
  type CatalogPrice,
  catalog_prices_any,
  load_price_book,
  PriceBook,
} from './cost/price_book.js';
export type { AttachedMentions } from './file_mentions.js';
export { ATTACHMENT_MARK, attach_file_mentions, file_mentions } from './file_mentions.js';
export {
  HOOK_SESSION_FIELD,
  HookDispatcher,
  type HookRunResult,
  type HookSession,
} from './hooks/hook_dispatcher.js';
export { type HookVerdict, read_hook_output } from './hooks/hook_output.js';
export { HOOK_IMPORTS, resolve_hook_sets } from './hooks/hook_sources.js';
export {
  HOOK_EVENTS,
  type HookEvent,
  type HookGroup,
  type HookSet,
  type HooksSettings,
} from './hooks/hooks_schema.js';
export { run_hook_command } from './hooks/run_hook_command.js';
export {
  type CommandContext,
  CommandRegistry,
  type SessionListing,
  type SlashCommand,
} from './host/command_registry.js';
export { host_event_json } from './host/host_event_json.js';
export {
  create_session_host,
  type LocalSessionHost,
  type SessionHostOptions,
} from './host/session_host.js';
export { SessionHostError, type SessionHostErrorCode } from './host/session_host_error.js';
export {
  type ApprovalMode,
  type CommandInfo,
  type CommandResult,
  HOST_EVENT_TYPES,
  type HostEvent,
  type HostEventPayloads,
  type HostEventType,
  type ModelInfo,
  PERMISSION_OPTIONS,
  type PermissionOption,
  type RunObserver,
  type SessionHost,
  type SessionInfo,
  type SubscribeOptions,
  type Subscription,
  type ToolInfo,
  type TurnStopReason,
  type TurnTicket,
} from './host/session_host_types.js';
export { MAX_IMAGE_FILE_BYTES, read_image_file } from './images/read_image_file.js';
export type {
  Approver,
  PermissionAnswer,
  PermissionDecision,
  PermissionRequest,
} from './permissions/permission_gate.js';
export {
  PermissionPolicy,
  type PermissionsConfig,
  type PolicyDecision,
  type RememberedAnswers,
} from './permissions/permission_policy.js';
export type { PermissionRule } from './permissions/permission_rules.js';
export type { PermissionsSettings } from './permissions/permissions_schema.js';
export { create_provider_chat, missing_api_keys } from './provider_chat.js';
export { session_store_of } from './session_store_of.js';
export { CLAUDE_TOOL_NAMES, lich_permission_rules } from './skills/claude_tool_names.js';
export { find_skills, find_skills_for, PROJECT_SKILL_FOLDERS } from './skills/find_skills.js';
export { parse_front_matter } from './skills/front_matter.js';
export { SKILL_TOOL_NAME, skill_tool, skills_prompt } from './skills/skill_tool.js';
export type { Skill, SkillCatalog, SkillScope } from './skills/skill_types.js';
export { format_skills } from './skills/skills_command.js';
export { SKILL_IMPORTS, type SkillsSettings } from './skills/skills_schema.js';
export {
  git_state,
  local_day,
  type PromptEnvironment,
  prompt_environment,
} from './system_prompt/environment.js';
export {
  compose_system_prompt,
  type PromptSurface,
  prompt_tokens,
  system_prompt_preview,
  TOOL_GUIDANCE,
} from './system_prompt/system_prompt.js';
export { AGENT_TOOL_NAMES, AGENT_TOOLS } from './toolbox/agent_tools.js';
export {
  carry_todos,
  read_todos,
  render_todos,
  TODO_STATUSES,
  type TodoItem,
  type TodoStatus,
  todos_from_history,
} from './toolbox/todo_list.js';
export { todo_write_tool } from './toolbox/todo_write.js';
export {
  type ConfigForTrust,
  config_for_trust,
  type HeldKey,
  type HeldUntilTrusted,
  held_warning,
} from './trust/config_for_trust.js';
export { is_loopback_url } from './trust/hold_project_settings.js';
export { type RunnablesConfig, repository_runnables } from './trust/repository_runnables.js';
export {
  type FolderTrust,
  folder_trust,
  set_folder_trust,
  type TrustAnswer,
  trust_file_path,
} from './trust/trust_store.js';
export {
  known_session_dirs,
  remember_session_dir,
  session_dirs_file,
} from './usage/known_session_dirs.js';
export {
  type SessionRecords,
  type UsageReport,
  type UsageRow,
  usage_report,
} from './usage/usage_report.js';
