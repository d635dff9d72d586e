export type {
  AnthropicBlockDelta,
  AnthropicErrorBody,
  AnthropicEvent,
  AnthropicMessage,
  AnthropicRequest,
  AnthropicRequestBlock,
  AnthropicResponse,
  AnthropicResponseBlock,
  AnthropicTool,
  AnthropicUsage,
} from './anthropic_api.js';
export { ANTHROPIC_DEFAULT_BASE_URL, anthropic_messages_url } from './anthropic_endpoint.js';
export { create_anthropic_provider } from './anthropic_provider.js';
export type { AnthropicCallContext } from './anthropic_result.js';
export {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_KIND,
  ANTHROPIC_VERSION,
  type AnthropicOptions,
} from './anthropic_settings.js';
export { AnthropicStreamState } from './anthropic_stream_state.js';
export { from_anthropic_response } from './from_anthropic_response.js';
export { map_anthropic_stop_reason } from './map_anthropic_stop_reason.js';
export { map_anthropic_usage } from './map_anthropic_usage.js';
export { type AnthropicErrorInfo, read_anthropic_error } from './read_anthropic_error.js';
export {
  type AnthropicPrompt,
  to_anthropic_messages,
  to_anthropic_tools,
} from './to_anthropic_messages.js';
