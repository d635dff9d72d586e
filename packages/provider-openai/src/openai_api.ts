import type { FunctionTool } from '@lich/providers';
/**
 * The OpenAI chat completions wire format, kept to the fields Lich sends or reads. Servers that
 * speak it (OpenAI, OpenRouter, vLLM, llama.cpp, LM Studio, Ollama's `/v1`) add fields of their
 * own; everything read here is optional because they differ in what they fill in.
 */

/** One function call the model asked for, as sent back in the history. */
export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A part of a user message made of parts: text, or a picture as a `data:` URL. */
export type OpenAiUserPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } };

/** A message of the request's `messages` array. */
export type OpenAiMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAiUserPart[] }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: OpenAiToolCall[];
      /** Sent back only when the provider option `send_reasoning` names this field. */
      reasoning_content?: string;
      reasoning?: string;
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** The request body of `POST /chat/completions`. */
export interface OpenAiRequest {
  model: string;
  messages: OpenAiMessage[];
  tools?: FunctionTool[];
  stream: boolean;
  stream_options?: { include_usage: boolean };
  /** Routes requests that share a prefix to the same prompt cache (Lich sends the session id). */
  prompt_cache_key?: string;
  max_tokens?: number;
  temperature?: number;
  [extra: string]: unknown;
}

/** Token counts, with the details newer servers add. */
export interface OpenAiUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** A tool call in a response message (non-streaming). */
export interface OpenAiResponseToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string | Record<string, unknown> };
}

/** The assistant message of a non-streaming choice. */
export interface OpenAiResponseMessage {
  role?: string;
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: OpenAiResponseToolCall[] | null;
}

/** The body of a non-streaming response. */
export interface OpenAiResponse {
  id?: string;
  model?: string;
  choices?: { index?: number; message?: OpenAiResponseMessage; finish_reason?: string | null }[];
  usage?: OpenAiUsage | null;
  /** Some servers answer 200 with an error body. */
  error?: OpenAiErrorDetail | string;
}

/** A piece of a tool call in a stream chunk; `index` ties the pieces together. */
export interface OpenAiToolCallDelta {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string | Record<string, unknown> };
}

/** The `delta` of one streamed choice. */
export interface OpenAiDelta {
  role?: string;
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: OpenAiToolCallDelta[] | null;
}

/** One `data:` event of a streaming response. */
export interface OpenAiChunk {
  id?: string;
  model?: string;
  choices?: { index?: number; delta?: OpenAiDelta; finish_reason?: string | null }[];
  usage?: OpenAiUsage | null;
  /** OpenRouter and others report a failure after the 200 as a chunk with `error`. */
  error?: OpenAiErrorDetail | string;
}

/** The `error` object of an error body. */
export interface OpenAiErrorDetail {
  message?: string;
  type?: string;
  param?: string | null;
  code?: string | number | null;
}

/**
 * An error body: `{ error: { message, type, code } }` (OpenAI, OpenRouter, llama.cpp), or flat
 * `{ object: 'error', message, type, code }` (vLLM), or `{ error: 'text' }`.
 */
export interface OpenAiErrorBody {
  error?: OpenAiErrorDetail | string;
  message?: string;
  type?: string;
  code?: string | number | null;
}
