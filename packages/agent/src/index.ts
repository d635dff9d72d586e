export { ConfigError } from './config_error.js';
export {
  parse_cli_value,
  parse_config_text,
  project_config_path,
  type ReadConfigResult,
  read_config_file,
  set_config_value,
  user_config_path,
  write_config_file,
} from './config_file.js';
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
export {
  type AgentConfig,
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
  DEFAULT_OLLAMA_HOST,
  detect_env_providers,
  type EnvProviders,
  normalize_kind,
  ollama_base_url,
  probe_ollama,
} from './env_providers.js';
export { edit_distance, nearest_word } from './nearest_word.js';
export { find_unknown_keys, type UnknownKey } from './unknown_keys.js';
