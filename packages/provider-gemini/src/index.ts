export { GEMINI_DEFAULT_BASE_URL } from './gemini_endpoint.js';
export { create_gemini_provider } from './gemini_provider.js';
export { GEMINI_KEY_ENVS, GEMINI_KIND, type GeminiOptions } from './gemini_settings.js';
export { to_gemini_schema } from './to_gemini_schema.js';
