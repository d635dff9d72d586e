export { OLLAMA_DEFAULT_BASE_URL } from './ollama_endpoint.js';
export { create_ollama_provider } from './ollama_provider.js';
export { OLLAMA_KIND, type OllamaOptions } from './ollama_settings.js';
