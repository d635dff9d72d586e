/**
 * The message and tool contracts every Lich package speaks. Field names follow the wire formats
 * (`tool_calls`, `tool_call_id`, `finish_reason`); each provider maps these to its own API.
 */

/** A system prompt. At most one, and when present it is the first message. */
export interface SystemMessage {
  role: 'system';
  content: string;
}

/** A piece of text in a message made of parts. */
export interface TextPart {
  type: 'text';
  text: string;
}

/**
 * A picture in a message made of parts: its bytes as base64 (`data`), or a reference to bytes
 * kept elsewhere (`blob`, the sha256 of a file in a session's blob store), with its media type.
 * A part read back from a session file carries `blob`; whoever sends it loads `data` first.
 * `name` is what a person would call it (the file name), used where the picture cannot be shown.
 */
export interface ImagePart {
  type: 'image';
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  media_type: string;
  /** The bytes, base64-encoded. */
  data?: string;
  /** The sha256 (hex) of the bytes in the session's blob store. */
  blob?: string;
  name?: string;
  /** Width and height in pixels, when known (the token estimate uses them). */
  width?: number;
  height?: number;
}

/**
 * One part of a message's content. New kinds (audio, a PDF) join as more members of this union,
 * each with a `type`, a `media_type` and `data`/`blob` as `ImagePart` has.
 */
export type ContentPart = TextPart | ImagePart;

/**
 * What a user or tool message holds: plain text, or a list of parts (text and pictures). Plain
 * text is the common case and stays valid everywhere.
 */
export type MessageContent = string | ContentPart[];

/** What the person (or a surface acting for them) said. */
export interface UserMessage {
  role: 'user';
  content: MessageContent;
}

/**
 * One block of model reasoning as the provider returned it, kept so it can be sent back on the
 * next turn (Anthropic requires thinking blocks with their signatures across tool-use turns).
 * `redacted` holds the opaque data of a redacted thinking block; `text` is then empty.
 */
export interface ReasoningPart {
  text: string;
  signature?: string;
  redacted?: string;
}

/** A request from the model to run one tool. `arguments` is the raw JSON text the model wrote. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The model's turn: text (possibly empty), the tool calls it wants made, and its reasoning.
 * `reasoning` is the readable text shown apart from the answer; `reasoning_parts` are the
 * provider's blocks to replay, when it has any.
 */
export interface AssistantMessage {
  role: 'assistant';
  content: string;
  tool_calls?: ToolCall[];
  reasoning?: string;
  reasoning_parts?: ReasoningPart[];
}

/** The result of one tool call, answering the call with the same `tool_call_id`. */
export interface ToolMessage {
  role: 'tool';
  tool_call_id: string;
  /** The tool's name; some providers (Ollama, Gemini-style APIs) want it with the result. */
  name?: string;
  content: MessageContent;
  is_error?: boolean;
}

/** Any message of a conversation. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** `system`, `user`, `assistant` or `tool`: what tells the kinds of `Message` apart. */
export type Role = Message['role'];

/** A JSON Schema object, as handed to the model for a tool's parameters. */
export type JsonSchema = { [key: string]: unknown };

/** What the model is told about one tool. `parameters` is a JSON Schema of type object. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** Token counts of one model call, as the provider reported them. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  /** Input tokens served from the provider's prompt cache. */
  cache_read_tokens?: number;
  /** Input tokens written to the provider's prompt cache. */
  cache_write_tokens?: number;
  /**
   * The part of `cache_write_tokens` written with a 1 hour TTL (Anthropic bills it at 2× input,
   * the 5 minute write at 1.25×); absent or 0: every write was a 5 minute one.
   */
  cache_write_1h_tokens?: number;
  /** Output tokens spent on reasoning, where the provider says so. */
  reasoning_tokens?: number;
}

/** Why the model stopped: the provider's reason mapped to one vocabulary. */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'error' | 'other';

/** What one model call produced. */
export interface ChatResult {
  message: AssistantMessage;
  finish_reason: FinishReason;
  usage?: Usage;
  /** The provider that answered (`openai_compat`, `anthropic`, …), when known. */
  provider?: string;
  /** The model that answered, when known. */
  model?: string;
}

/** A piece of a streamed answer: visible text or reasoning. */
export interface ChatDelta {
  kind: 'text' | 'reasoning';
  text: string;
}

/** Per-call options of a `ChatFn`. */
export interface ChatOptions {
  /** Aborts the call; a ChatFn rejects promptly once it fires. */
  signal?: AbortSignal;
  /** Called with each streamed piece, in order. A ChatFn that does not stream never calls it. */
  on_delta?: (delta: ChatDelta) => void;
  /** Upper bound of output tokens for this call. */
  max_tokens?: number;
  /**
   * Names the calls that share one prompt prefix (Lich passes the session id), so a provider that
   * routes its prompt cache by a key (OpenAI's `prompt_cache_key`) sends them to the same cache.
   */
  cache_key?: string;
  /**
   * The caller shows no delta as it comes (its output is buffered: `--json`, a pipe), so a stream
   * cut after some deltas may be retried from the start: `on_restart` is called first, and the
   * caller drops what it was given. Without it, such a cut is never retried (no text twice).
   */
  restartable?: boolean;
  /** Called before a restarted attempt, when `restartable` allowed one. */
  on_restart?: () => void;
}

/**
 * The one narrow function the loop uses to talk to a model.
 *
 * Contract:
 * - resolves with the assistant message of one model call;
 * - `tools` may be empty, in which case no tool may be called;
 * - streams through `options.on_delta` when it can, never delivering the same text twice;
 * - rejects with a clear error (a `ProviderError` from `@lich/providers`) when the call fails, and
 *   promptly when `options.signal` aborts.
 */
export type ChatFn = (
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  options?: ChatOptions,
) => Promise<ChatResult>;

/** The outcome of one tool call. Expected failures are data: `ok: false` with an `error`. */
export interface ToolResult {
  ok: boolean;
  /** What the model sees: the tool's output, or on failure a message it can act on. */
  output: string;
  error?: string;
  /** True when `output` was clamped. */
  truncated?: boolean;
  /**
   * How a command the tool ran was confined: `'bwrap'`, `'sandbox-exec'`, or `'none'` when it ran
   * unsandboxed. Absent for tools that run no command.
   */
  sandbox?: string;
  /** True when `output` holds content from outside (a web page): data, never instructions. */
  untrusted?: boolean;
  /** Pictures the tool returns with its output (a `read_file` of a PNG, an MCP tool's image). */
  images?: ImagePart[];
  duration_ms: number;
}

/** What a tool call runs with. Surfaces may add their own fields. */
export interface ToolContext {
  /** Fires when the run is aborted; tools stop and clean up what they started. */
  signal?: AbortSignal;
  /** The id of the call being run. */
  tool_call_id?: string;
  /** The folder tools work in. */
  work_dir?: string;
  /**
   * Called by a runner once the call passed its checks (permissions, hooks) and the tool itself
   * starts, so a surface can tell "waiting for approval" from "running". A runner that never calls
   * it leaves the call looking started from `tool_call_start` on.
   */
  on_running?: () => void;
  [key: string]: unknown;
}

/**
 * Runs tools by name for the loop.
 *
 * Contract: `execute` should not throw; the loop still turns a rejection into an `ok: false`
 * result so the run goes on.
 */
export interface ToolRunner {
  execute(name: string, args: unknown, context?: ToolContext): Promise<ToolResult>;
}
