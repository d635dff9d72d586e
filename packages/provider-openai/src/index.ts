export { OPENAI_DEFAULT_BASE_URL } from './openai_endpoint.js';
export { create_openai_provider } from './openai_provider.js';
export { OPENAI_COMPAT_KIND, type OpenAiOptions } from './openai_settings.js';
export type { OpenAiReasoningField } from './to_openai_messages.js';
