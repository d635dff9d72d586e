export { map_ollama_done_reason } from './map_ollama_done_reason.js';
export type {
  OllamaChunk,
  OllamaMessage,
  OllamaRequest,
  OllamaTool,
  OllamaToolCall,
} from './ollama_api.js';
export { OLLAMA_DEFAULT_BASE_URL, ollama_chat_url } from './ollama_endpoint.js';
export { create_ollama_provider } from './ollama_provider.js';
export { OLLAMA_KIND, type OllamaOptions } from './ollama_settings.js';
export { type OllamaCallContext, OllamaStreamState } from './ollama_stream_state.js';
export { to_ollama_messages, to_ollama_tools } from './to_ollama_messages.js';
