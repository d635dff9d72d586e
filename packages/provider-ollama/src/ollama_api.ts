import type { FunctionTool } from '@lich/providers';
/**
 * The Ollama `/api/chat` wire format, kept to the fields Lich sends or reads. Streaming answers
 * are NDJSON: one `OllamaChunk` per line, the last with `done: true` and the token counts.
 */

/** A tool call; Ollama sends and takes `arguments` as an object, not as JSON text. */
export interface OllamaToolCall {
  function: { name: string; arguments: Record<string, unknown> };
}

/** A message of the request. */
export interface OllamaMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** The model's reasoning, sent back with its assistant turn. */
  thinking?: string;
  tool_calls?: OllamaToolCall[];
  /** On a tool result: the name of the tool that produced it. */
  tool_name?: string;
  /** Pictures, each its bytes as base64 (multimodal models). */
  images?: string[];
}

/** The request body of `POST /api/chat`. */
export interface OllamaRequest {
  model: string;
  messages: OllamaMessage[];
  tools?: FunctionTool[];
  stream: boolean;
  /** Thinking for models that can: `true`/`false`, or a level (`'low'`, `'medium'`, `'high'`). */
  think?: boolean | string;
  /** Model options such as `temperature`, `num_predict`, `num_ctx`. */
  options?: Record<string, unknown>;
  keep_alive?: string | number;
}

/** A tool call as the server sends it; fields are checked, not trusted. */
export interface OllamaResponseToolCall {
  id?: string;
  function?: { name?: string; arguments?: unknown };
}

/** One NDJSON line of a streaming answer, or the whole body of a non-streaming one. */
export interface OllamaChunk {
  model?: string;
  message?: {
    role?: string;
    content?: string;
    thinking?: string;
    tool_calls?: OllamaResponseToolCall[] | null;
  };
  done?: boolean;
  /** `stop`, `length`, `load`, `unload`. */
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  /** A failure, in an error body or as a line of a stream that already answered 200. */
  error?: string | { message?: string };
}
