export {
  type AnthropicBill,
  AnthropicCache,
  type AnthropicCacheOptions,
  anthropic_blocks,
  CacheRuleError,
  LOOKBACK_BLOCKS,
  MAX_BREAKPOINTS,
} from './anthropic_cache.js';
export { DEFAULT_THINKING_SIGNATURE, render_anthropic } from './anthropic_render.js';
export {
  BEDROCK_FAKE_SIGNATURE,
  event_stream_message,
  render_bedrock,
} from './bedrock_render.js';
export { default_error_message, error_body } from './error_body.js';
export {
  type FakeChat,
  type FakeChatBreak,
  type FakeChatCall,
  type FakeChatOptions,
  type FakeChatReply,
  type FakeChatStep,
  fake_chat,
  to_chat_result,
} from './fake_chat.js';
export {
  type FakeBill,
  type FakeServer,
  type FakeServerOptions,
  start_anthropic_server,
  start_bedrock_server,
  start_fake_server,
  start_gemini_server,
  start_ollama_server,
  start_openai_server,
} from './fake_server.js';
export { FIXTURES_DIR, fixture_path, read_fixture } from './fixtures.js';
export { fs_state, type PathState } from './fs_state.js';
export { type GatewayCliSpec, gateway_cli_suite } from './gateway_cli_suite.js';
export { GEMINI_FAKE_SIGNATURE, render_gemini } from './gemini_render.js';
export { picture_conversation, TINY_PNG_BASE64, tiny_png } from './images.js';
export { render_ollama } from './ollama_render.js';
export {
  type OpenAIBill,
  OpenAICache,
  type OpenAICacheOptions,
  openai_prompt_text,
} from './openai_cache.js';
export { render_openai } from './openai_render.js';
export {
  RESPONSES_FAKE_ENCRYPTED,
  render_openai_responses,
} from './openai_responses_render.js';
export { type ProviderContractSpec, provider_contract_suite } from './provider_contract.js';
export {
  type ContractConfig,
  type ContractProvider,
  HARNESS_USER,
  type HarnessCallOptions,
  type HarnessError,
  type HarnessSpec,
  type ProviderHarness,
  provider_harness,
  WEATHER_TOOL,
} from './provider_harness.js';
export { type RenderContext, type RenderedResponse, sse_event } from './render.js';
export { type Requirement, require_or_skip } from './requirement.js';
export type {
  CutFault,
  FakeReply,
  FakeToolCall,
  HtmlFault,
  RawStep,
  RecordedRequest,
  ReplayStep,
  ResetFault,
  ScriptStep,
  StallFault,
  StatusFault,
  StepTiming,
  WireFormat,
} from './script.js';
export { split_bytes, split_text } from './split.js';
export { make_temp_dir, type TempDir } from './temp_dir.js';
export { thrown } from './thrown.js';
export { unused_port_url } from './unused_port.js';
