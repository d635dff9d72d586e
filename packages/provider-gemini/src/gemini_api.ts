/**
 * The Gemini API wire format (`generateContent` / `streamGenerateContent`), kept to the fields
 * Lich sends or reads. Every field read is optional: the API leaves out what it has nothing for.
 */

/** One piece of a content: text, a thought, a function call or a function's answer. */
export interface GeminiPart {
  text?: string;
  /** Marks `text` as the model's thinking, not its answer. */
  thought?: boolean;
  /** An opaque signature of the model's thinking, to be sent back with the part it came on. */
  thoughtSignature?: string;
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
  /** A picture, its bytes as base64. */
  inlineData?: { mimeType: string; data: string };
}

/** A turn of the conversation: the user's (tool results included) or the model's. */
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** A function the model may call. `parameters` is in the OpenAPI subset the API accepts. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
}

/** The request body of `:generateContent` and `:streamGenerateContent`. */
export interface GeminiRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'NONE' } };
  generationConfig?: {
    maxOutputTokens?: number;
    temperature?: number;
    thinkingConfig?: Record<string, unknown>;
  };
  [extra: string]: unknown;
}

/** Token counts of an answer (the last chunk of a stream carries the totals). */
export interface GeminiUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
}

/** One answer, whole or one chunk of a stream. */
export interface GeminiResponse {
  candidates?: {
    content?: { role?: string; parts?: GeminiPart[] };
    finishReason?: string;
    index?: number;
  }[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: GeminiUsage;
  modelVersion?: string;
  /** An error reported inside a 200 (the stream broke upstream). */
  error?: GeminiErrorDetail;
}

/** The `error` object of an error body. */
export interface GeminiErrorDetail {
  code?: number;
  message?: string;
  /** `INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`, `PERMISSION_DENIED`… */
  status?: string;
  /** `ErrorInfo` (`reason`), `RetryInfo` (`retryDelay`, a protobuf duration such as `"37s"`)… */
  details?: { '@type'?: string; reason?: string; retryDelay?: string }[];
}
