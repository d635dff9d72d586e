export { from_openai_response } from './from_openai_response.js';
export { map_openai_finish_reason } from './map_openai_finish_reason.js';
export { map_openai_usage } from './map_openai_usage.js';
export type {
  OpenAiChunk,
  OpenAiDelta,
  OpenAiErrorBody,
  OpenAiErrorDetail,
  OpenAiMessage,
  OpenAiRequest,
  OpenAiResponse,
  OpenAiTool,
  OpenAiToolCall,
  OpenAiUsage,
} from './openai_api.js';
export { OPENAI_DEFAULT_BASE_URL, openai_chat_url } from './openai_endpoint.js';
export { create_openai_provider } from './openai_provider.js';
export type { OpenAiCallContext } from './openai_result.js';
export { OPENAI_COMPAT_KIND, type OpenAiOptions } from './openai_settings.js';
export { OpenAiStreamState } from './openai_stream_state.js';
export { type OpenAiErrorInfo, read_openai_error } from './read_openai_error.js';
export {
  type OpenAiReasoningField,
  to_openai_messages,
  to_openai_tools,
} from './to_openai_messages.js';
