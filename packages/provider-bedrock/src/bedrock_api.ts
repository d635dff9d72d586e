/** The Bedrock Converse API wire format, kept to the fields Lich sends or reads. */

/** A picture in a block: the JSON form of Converse carries the bytes as base64. */
export interface BedrockImage {
  format: string;
  source: { bytes: string };
}

/**
 * A prompt cache checkpoint: a block of its own (Converse blocks are tagged unions), placed after
 * the content to cache in `system`, a message's `content` or `toolConfig.tools`. No `ttl` is the
 * 5 minute default.
 */
export interface BedrockCachePoint {
  cachePoint: { type: 'default'; ttl?: '5m' | '1h' };
}

/** One block of a message's content. */
export interface BedrockBlock {
  cachePoint?: BedrockCachePoint['cachePoint'];
  text?: string;
  /** A picture: its format (`png`, `jpeg`, `gif`, `webp`) and its bytes as base64. */
  image?: BedrockImage;
  toolUse?: { toolUseId: string; name: string; input: Record<string, unknown> };
  toolResult?: {
    toolUseId: string;
    content: ({ text: string } | { image: BedrockImage })[];
    status?: 'success' | 'error';
  };
  reasoningContent?: {
    reasoningText?: { text: string; signature?: string };
    redactedContent?: string;
  };
}

export interface BedrockMessage {
  role: 'user' | 'assistant';
  content: BedrockBlock[];
}

/** The body of `POST /model/{modelId}/converse` and `/converse-stream`. */
export interface BedrockRequest {
  messages: BedrockMessage[];
  system?: ({ text: string } | BedrockCachePoint)[];
  inferenceConfig?: { maxTokens?: number; temperature?: number };
  toolConfig?: {
    tools: (
      | { toolSpec: { name: string; description: string; inputSchema: { json: unknown } } }
      | BedrockCachePoint
    )[];
  };
  additionalModelRequestFields?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** Token counts (`metadata.usage` of a stream, `usage` of a whole answer). */
export interface BedrockUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
  /** `cacheWriteInputTokens` by TTL. */
  cacheDetails?: { ttl?: string; inputTokens?: number }[];
}

/** The payload of one stream event, by its `:event-type`. */
export interface BedrockEvent {
  role?: string;
  contentBlockIndex?: number;
  start?: { toolUse?: { toolUseId?: string; name?: string } };
  delta?: {
    text?: string;
    toolUse?: { input?: string };
    reasoningContent?: { text?: string; signature?: string; redactedContent?: string };
  };
  stopReason?: string;
  usage?: BedrockUsage;
  message?: string;
}

/** A whole (non-streaming) answer. */
export interface BedrockResponse {
  output?: { message?: { role?: string; content?: BedrockBlock[] } };
  stopReason?: string;
  usage?: BedrockUsage;
}
