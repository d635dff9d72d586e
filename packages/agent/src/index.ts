export { nearest_word } from '@lich/tools';
export {
  Agent,
  type AgentOptions,
  type AgentRunOptions,
  type AgentRunResult,
} from './agent.js';
export { base_url_problem } from './base_url_check.js';
export { builtin_commands } from './builtin_commands.js';
export { builtin_tool_names } from './builtin_tool_names.js';
export { collect_usage } from './collect_usage.js';
export { type CommandParts, command_parts } from './command_parts.js';
export {
  type CommandContext,
  CommandRegistry,
  type SessionListing,
  type SlashCommand,
} from './command_registry.js';
export { ConfigError } from './config_error.js';
export {
  CONFIG_FILE_MAX_BYTES,
  parse_cli_value,
  parse_config_text,
  project_config_path,
  type ReadConfigResult,
  read_config_file,
  type SetConfigResult,
  set_config_value,
  user_config_path,
  write_config_file,
} from './config_file.js';
export {
  CONFIG_SCHEMA_PATH,
  config_json_schema,
  config_schema_path,
} from './config_json_schema.js';
export {
  type ConfigFlags,
  type ConfigSource,
  deep_freeze,
  type LoadConfigOptions,
  type LoadConfigResult,
  type LoadedConfig,
  load_config,
  make_config,
} from './config_load.js';
export { REDACTED, redact_config, redact_urls } from './config_redact.js';
export {
  type AgentConfig,
  BASE_URL_SCHEMA,
  BUILT_IN_KIND_NAMES,
  COMPRESSION_SCHEMA,
  CONFIG_FILE_SCHEMA,
  CONFIG_KEYS,
  CONFIG_SCHEMA,
  type CompressionConfig,
  type ConfigFile,
  DEFAULT_API_KEY_ENVS,
  DEFAULT_MODELS,
  DEFAULT_SYSTEM_PROMPT,
  type McpServersConfig,
  PROVIDER_ENTRY_SCHEMA,
  type ProviderEntry,
} from './config_schema.js';
export {
  DEFAULT_COALESCE_MS,
  DeltaCoalescer,
  type DeltaKind,
} from './delta_coalescer.js';
export {
  DEFAULT_OLLAMA_HOST,
  detect_env_providers,
  type EnvProviders,
  normalize_kind,
  ollama_base_url,
  probe_ollama,
} from './env_providers.js';
export { DEFAULT_RING_BYTES, DEFAULT_RING_EVENTS, EventRing } from './event_ring.js';
export { host_event_json } from './host_event_json.js';
export { type JsoncScan, MAX_JSON_DEPTH, scan_jsonc } from './jsonc.js';
export { type LoadedPlugins, load_plugins, type PluginTarget } from './load_plugins.js';
export { chain_for_model, model_label } from './model_chain.js';
export {
  type Approver,
  create_permission_gate,
  type GateVerdict,
  PERMISSION_GATE_FIELD,
  PERMISSION_HOOK,
  type PermissionAnswer,
  type PermissionDecision,
  type PermissionGate,
  type PermissionGateOptions,
  type PermissionRequest,
} from './permission_gate.js';
export {
  PermissionPolicy,
  type PermissionsConfig,
  type PolicyDecision,
  type RememberedAnswers,
  remembered_answers,
} from './permission_policy.js';
export {
  COMMAND_TOOLS,
  EDIT_TOOLS,
  escape_pattern,
  PATH_TOOLS,
  type PermissionRule,
  parse_rule,
  READ_TOOLS,
  type RuleEffect,
  rule_argument,
  rule_matches,
  type ToolKind,
  tool_kind,
} from './permission_rules.js';
export {
  DEFAULT_PERMISSIONS,
  merge_permissions,
  PERMISSIONS_SCHEMA,
  type PermissionsSettings,
} from './permissions_schema.js';
export { persist_permission_rule } from './persist_permission_rule.js';
export {
  FALLBACK_INSTRUCTIONS_FILES,
  type FindInstructionsOptions,
  find_project_instructions,
  find_user_instructions,
  INSTRUCTIONS_MAX_BYTES,
  PROJECT_INSTRUCTIONS_FILE,
  PROJECT_INSTRUCTIONS_LIMIT,
  type ProjectInstructions,
  user_instructions_path,
  with_project_instructions,
} from './project_instructions.js';
export {
  BUILT_IN_KINDS,
  create_provider_chat,
  create_router,
  lazy_factory,
  missing_api_keys,
  type ProviderChatOptions,
  to_provider_config,
} from './provider_chat.js';
export {
  type ReadRefusal,
  type RegularFileText,
  read_regular_file,
} from './read_regular_file.js';
export {
  create_session_host,
  type LocalSessionHost,
  type SessionHostOptions,
} from './session_host.js';
export { SessionHostError, type SessionHostErrorCode } from './session_host_error.js';
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
  type SessionHost,
  type SessionInfo,
  type SubscribeOptions,
  type Subscription,
  type ToolInfo,
  type TurnStopReason,
  type TurnTicket,
} from './session_host_types.js';
export { type SessionGateOptions, session_permission_gate } from './session_permission_gate.js';
export {
  tool_allowed,
  tool_pattern_matches,
  unmatched_tool_patterns,
} from './tool_allowlist.js';
export { trim_history } from './trim_history.js';
export { find_unknown_keys, type UnknownKey } from './unknown_keys.js';
