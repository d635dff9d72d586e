export type { ByteSource, ChunkDecoder } from './byte_source.js';
export type { CallContext } from './call_context.js';
export { type ConfigChecks, config_checks } from './config_checks.js';
export { endpoint_url } from './endpoint_url.js';
export { type FunctionTool, to_function_tools } from './function_tools.js';
export type { ErrorBodyInfo, ErrorExtractor } from './http/error_body.js';
export {
  create_http_provider,
  type ProviderWire,
  type WireRequest,
} from './http/http_provider.js';
export type { HeaderLookup } from './http/response_headers.js';
export { parse_tool_arguments } from './parse_tool_arguments.js';
export type {
  LLMProvider,
  PromptCacheConfig,
  ProviderConfig,
  ProviderFactory,
} from './provider.js';
export { type ChainFailure, ProviderChainError } from './provider_chain_error.js';
export { ProviderError, type ProviderErrorInit, type ProviderErrorKind } from './provider_error.js';
export {
  DEFAULT_COOLDOWN_MS,
  MAX_COOLDOWN_MS,
  ProviderRouter,
  type ProviderRouterOptions,
} from './provider_router.js';
export { NdjsonDecoder, type ReadNdjsonOptions, read_ndjson } from './read_ndjson.js';
export { type ReadSseOptions, read_sse } from './read_sse.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry_delay.js';
export type { ProviderFailoverEvent, ProviderRetryEvent, RouterEvent } from './router_events.js';
export { type SseEvent, SseParser, type SseParserOptions } from './sse_parser.js';
export { StreamParseError } from './stream_parse_error.js';
export { BaseStreamState, type SseChunk, type StreamState } from './stream_state.js';
