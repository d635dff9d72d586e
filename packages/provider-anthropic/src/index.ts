export { ANTHROPIC_DEFAULT_BASE_URL } from './anthropic_endpoint.js';
export { create_anthropic_provider } from './anthropic_provider.js';
export {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_KIND,
  ANTHROPIC_VERSION,
  type AnthropicOptions,
} from './anthropic_settings.js';
