import type { FinishReason, Usage } from '@lich/core';

/** The wire formats the fake servers speak. */
export type WireFormat = 'openai' | 'anthropic' | 'ollama' | 'gemini' | 'bedrock';

/** One tool call of a scripted reply. `arguments` may be JSON text or an object. */
export interface FakeToolCall {
  /** Defaults to a generated id in the format's style (`call_…`, `toolu_…`). */
  id?: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

/** Fields every script step may carry. */
export interface StepTiming {
  /** Wait this long after the request arrived before answering at all. */
  delay_ms?: number;
}

/**
 * A high-level description of one successful answer; the server renders it into its format
 * (SSE chunks or NDJSON lines when the request asked to stream, one JSON body otherwise).
 */
export interface FakeReply extends StepTiming {
  kind?: 'reply';
  text?: string;
  reasoning?: string;
  /** Anthropic: the thinking block's signature (a default one is sent when omitted). */
  reasoning_signature?: string;
  /** Anthropic: the data of one `redacted_thinking` block sent after the thinking block. */
  redacted_reasoning?: string;
  tool_calls?: FakeToolCall[];
  /** Token counts; defaults are estimated from the request and the reply (chars / 4). */
  usage?: Partial<Usage>;
  /** In Lich's vocabulary, mapped per format; defaults to `tool_calls` or `stop`. */
  finish_reason?: FinishReason;
  /** The exact wire value (`end_turn`, `length`, …), overriding `finish_reason`. */
  wire_finish_reason?: string;
  /** Text and reasoning are sent in pieces of at most this many characters (default 8). */
  chunk_chars?: number;
  /** Tool-call arguments are sent in this many pieces (default 3) where the format streams them. */
  argument_pieces?: number;
  /** Pause between two chunks (slow stream). */
  chunk_delay_ms?: number;
  /** Re-split the whole streamed body into writes of this many bytes (splits UTF-8 and lines). */
  write_bytes?: number;
  /** After the content, send the format's mid-stream error and end the stream (no stop event). */
  error_event?: { type?: string; message: string };
  /** End the stream without its terminal events (`[DONE]`, `message_stop`, `done: true`). */
  unterminated?: boolean;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** An error status with the format's own error body. */
export interface StatusFault extends StepTiming {
  kind: 'status';
  status: number;
  /** The error message in the body (a default per status otherwise). */
  message?: string;
  /** OpenAI `error.type` / Anthropic `error.type` (defaults per status). */
  type?: string;
  /** OpenAI `error.code` (e.g. `insufficient_quota`). */
  code?: string | null;
  /** Replaces the whole body (an object is sent as JSON). */
  body?: string | Record<string, unknown>;
  /** Sent as the `retry-after` header (seconds, or an HTTP date). */
  retry_after?: number | string;
  /** Sent as the `retry-after-ms` header. */
  retry_after_ms?: number;
  /** Sent as the `x-should-retry` header. */
  should_retry?: boolean;
  headers?: Record<string, string>;
}

/** A 200 whose streamed body is cut (socket destroyed) after `after_bytes` bytes of body. */
export interface CutFault extends StepTiming {
  kind: 'cut';
  after_bytes: number;
  /** What is being streamed when the cut happens (a default text reply otherwise). */
  reply?: FakeReply;
}

/** The socket is destroyed before any byte of a response is written. */
export interface ResetFault extends StepTiming {
  kind: 'reset';
}

/**
 * The server sends nothing and keeps the connection open until the client gives up or the server
 * closes. With `headers: true` it first sends a 200 with the streaming headers, then nothing.
 */
export interface StallFault extends StepTiming {
  kind: 'stall';
  headers?: boolean;
}

/** An HTML page (as a misconfigured proxy sends), with status 200 unless told otherwise. */
export interface HtmlFault extends StepTiming {
  kind: 'html';
  status?: number;
}

/** Exactly these bytes, each chunk written separately (for malformed-stream tests). */
export interface RawStep extends StepTiming {
  kind: 'raw';
  chunks: ReadonlyArray<string | Uint8Array>;
  status?: number;
  /** Defaults to the format's streaming content type. */
  content_type?: string;
  headers?: Record<string, string>;
  chunk_delay_ms?: number;
}

/** A recorded stream from `fixtures/`, replayed verbatim. */
export interface ReplayStep extends StepTiming {
  kind: 'replay';
  /** A file name under `tooling/testkit/fixtures/`, or an absolute path. */
  fixture: string;
  /** Written in writes of this many bytes (default: one write per line). */
  write_bytes?: number;
  chunk_delay_ms?: number;
  content_type?: string;
}

/** What the server answers to one request, in queue order. */
export type ScriptStep =
  | FakeReply
  | StatusFault
  | CutFault
  | ResetFault
  | StallFault
  | HtmlFault
  | RawStep
  | ReplayStep;

/** One request the fake server received. */
export interface RecordedRequest {
  /** 0-based, in arrival order. */
  index: number;
  method: string;
  path: string;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The parsed JSON body, or `undefined` when it was not JSON. */
  body: unknown;
  raw_body: string;
  /** Whether the request asked for a stream (per the format's default). */
  stream: boolean;
}
