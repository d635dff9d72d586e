export type { ByteSource } from './byte_source.js';
export type { CallContext } from './call_context.js';
export { type ConfigChecks, config_checks } from './config_checks.js';
export { endpoint_url } from './endpoint_url.js';
export {
  default_extract_error,
  type ErrorBodyInfo,
  type ErrorExtractor,
  html_summary,
} from './error_body.js';
export { type FunctionTool, to_function_tools } from './function_tools.js';
export { create_idle_timeout, type IdleTimeout, type IdleTimeoutOptions } from './idle_timeout.js';
export { parse_tool_arguments } from './parse_tool_arguments.js';
export { type PostJsonOptions, type ProviderResponse, post_json } from './post_json.js';
export type { LLMProvider, ProviderConfig, ProviderFactory } from './provider.js';
export { type ChainFailure, ProviderChainError } from './provider_chain_error.js';
export { ProviderError, type ProviderErrorInit, type ProviderErrorKind } from './provider_error.js';
export {
  DEFAULT_COOLDOWN_MS,
  MAX_COOLDOWN_MS,
  ProviderRouter,
  type ProviderRouterOptions,
} from './provider_router.js';
export { type ReadNdjsonOptions, read_ndjson } from './read_ndjson.js';
export { type ReadSseOptions, read_sse } from './read_sse.js';
export {
  type HeaderLookup,
  parse_request_id,
  parse_retry_after,
  parse_should_retry,
} from './response_headers.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy, retry_delay } from './retry_delay.js';
export type { ProviderFailoverEvent, ProviderRetryEvent, RouterEvent } from './router_events.js';
export {
  type ChatCall,
  type ChatFraming,
  create_http_provider,
  type ProviderWire,
  send_chat,
} from './send_chat.js';
export { type SseEvent, SseParser, type SseParserOptions } from './sse_parser.js';
export { StreamParseError } from './stream_parse_error.js';
export type { SseChunk, StreamState } from './stream_state.js';
export { to_provider_error } from './to_provider_error.js';
