export type { LLMProvider, ProviderConfig, ProviderFactory } from './provider.js';
export { ProviderError, type ProviderErrorInit, type ProviderErrorKind } from './provider_error.js';
