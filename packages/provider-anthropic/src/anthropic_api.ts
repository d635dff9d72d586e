/**
 * The Anthropic Messages API wire format (`POST /v1/messages`, `anthropic-version: 2023-06-01`),
 * kept to the fields Lich sends or reads.
 */

/** A prompt cache breakpoint: the prefix up to and including the block carrying it is cached. */
export interface AnthropicCacheControl {
  type: 'ephemeral';
  /** `5m` when left out; `1h` wanted the `extended-cache-ttl-2025-04-11` beta header. */
  ttl?: '5m' | '1h';
}

/** A content block Lich sends. Thinking blocks cannot carry `cache_control`. */
/** A picture, its bytes inline as base64. */
export interface AnthropicImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string };
  cache_control?: AnthropicCacheControl;
}

export type AnthropicRequestBlock =
  | { type: 'text'; text: string; cache_control?: AnthropicCacheControl }
  | AnthropicImageBlock
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | {
      type: 'tool_use';
      id: string;
      name: string;
      input: Record<string, unknown>;
      cache_control?: AnthropicCacheControl;
    }
  | {
      type: 'tool_result';
      tool_use_id: string;
      /** Text, or text and image blocks (a tool that returns a picture). */
      content: string | ({ type: 'text'; text: string } | AnthropicImageBlock)[];
      is_error?: boolean;
      cache_control?: AnthropicCacheControl;
    };

/** A block of the top-level `system` when it is sent as a list (to carry a breakpoint). */
export interface AnthropicSystemBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl;
}

/** A message of the request; roles alternate, system text lives in the top-level `system`. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicRequestBlock[];
}

/** A tool offered to the model. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
}

/** The request body. `max_tokens` is required by the API. */
export interface AnthropicRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string | AnthropicSystemBlock[];
  tools?: AnthropicTool[];
  stream: boolean;
  temperature?: number;
  /** e.g. `{ type: 'enabled', budget_tokens: 2048 }`, passed through from the provider options. */
  thinking?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** Token counts: `input_tokens` excludes the cached parts, which are reported apart. */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** `cache_creation_input_tokens` by TTL. */
  cache_creation?: {
    ephemeral_5m_input_tokens?: number | null;
    ephemeral_1h_input_tokens?: number | null;
  } | null;
}

/** A content block of a response (or the start of a streamed one). */
export interface AnthropicResponseBlock {
  type?: string;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

/** The body of a non-streaming response, and the `message` of `message_start`. */
export interface AnthropicResponse {
  id?: string;
  type?: string;
  model?: string;
  content?: AnthropicResponseBlock[];
  stop_reason?: string | null;
  usage?: AnthropicUsage | null;
}

/** The `delta` of a `content_block_delta` event. */
export interface AnthropicBlockDelta {
  type?: string;
  text?: string;
  partial_json?: string;
  thinking?: string;
  signature?: string;
}

/** The data of any streamed event; `type` repeats the SSE event name. */
export interface AnthropicEvent {
  type?: string;
  index?: number;
  message?: AnthropicResponse;
  content_block?: AnthropicResponseBlock;
  delta?: AnthropicBlockDelta & { stop_reason?: string | null };
  usage?: AnthropicUsage | null;
  error?: AnthropicErrorDetail;
}

/** The `error` object of an error body or an `error` event. */
export interface AnthropicErrorDetail {
  type?: string;
  message?: string;
}

/** An error body: `{ type: 'error', error: { type, message }, request_id }`. */
export interface AnthropicErrorBody {
  type?: string;
  error?: AnthropicErrorDetail | string;
  request_id?: string;
  message?: string;
}
