export { BudgetStop, is_budget_stop } from './budget_stop.js';
export { compare_text } from './compare_text.js';
export type { CompressOptions, CompressResult } from './compressor.js';
export {
  compress_messages,
  DEFAULT_COMPRESS_THRESHOLD,
  DEFAULT_KEEP_RECENT,
  NOTHING_TO_COMPRESS,
  SUMMARY_PREFIX,
  should_compress,
} from './compressor.js';
export {
  content_images,
  content_text,
  has_images,
  image_placeholder,
  image_tokens,
  messages_have_images,
  with_images,
} from './content.js';
export type {
  AgentEvent,
  AgentEventType,
  AgentListener,
  BudgetEvent,
  BudgetExhaustedEvent,
  CompressEndEvent,
  CompressStartEvent,
  LlmDeltaEvent,
  LlmEndEvent,
  LlmStartEvent,
  RunEndEvent,
  RunStartEvent,
  SteerEvent,
  StoppedReason,
  StopReason,
  ToolCallEndEvent,
  ToolCallRunningEvent,
  ToolCallStartEvent,
} from './events.js';
export { AgentEmitter } from './events.js';
export type { ImageInfo } from './image_info.js';
export { image_info } from './image_info.js';
export type { ImageIntake, ImageIntakeOptions } from './image_intake.js';
export {
  byte_size_text,
  IMAGE_MEDIA_TYPES,
  image_from_base64,
  image_from_bytes,
  image_media_type,
} from './image_intake.js';
export type { CompressionParams, LoopDeps, LoopOutcome, LoopParams } from './loop.js';
export { DEFAULT_GRACE_INSTRUCTION, INTERRUPTED_MARK, run_conversation } from './loop.js';
export { one_line } from './one_line.js';
export { seed_system_prompt } from './seed_system_prompt.js';
export {
  CHARS_PER_TOKEN,
  estimate_definition_tokens,
  estimate_tokens,
  TokenCounter,
} from './tokens.js';
export type { Tool, ToolOutput, ToolPreview, ToolRegistrar, ToolRunContext } from './tool.js';
export type {
  AssistantMessage,
  ChatDelta,
  ChatFn,
  ChatOptions,
  ChatResult,
  ContentPart,
  FinishReason,
  ImagePart,
  JsonSchema,
  Message,
  MessageContent,
  ReasoningPart,
  Role,
  SystemMessage,
  TextPart,
  ToolCall,
  ToolContext,
  ToolDefinition,
  ToolMessage,
  ToolResult,
  ToolRunner,
  Usage,
  UserMessage,
} from './types.js';
export { add_usage, empty_usage } from './usage.js';
export type { JsonParseResult } from './util.js';
export { safe_json_parse, truncate_text } from './util.js';
