export { ANTHROPIC_DEFAULT_BASE_URL } from './anthropic_endpoint.js';
export { create_anthropic_provider } from './anthropic_provider.js';
export {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_KIND,
  ANTHROPIC_VERSION,
  type AnthropicOptions,
} from './anthropic_settings.js';
export {
  count_breakpoints,
  EXTENDED_CACHE_TTL_BETA,
  MAX_CACHE_BREAKPOINTS,
  with_cache_breakpoints,
} from './cache_breakpoints.js';
