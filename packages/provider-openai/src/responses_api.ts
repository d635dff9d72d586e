/** A part of a user input message: text, or a picture as a `data:` URL. */
export type ResponsesInputPart =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string };

/** The OpenAI Responses API wire format (`POST /responses`), kept to what Lich sends or reads. */

/** One item of a request's `input` (and of a response's `output`). */
export type ResponsesItem =
  | { role: 'user'; content: ResponsesInputPart[] }
  | { type: 'message'; role: 'assistant'; content: { type: 'output_text'; text: string }[] }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string }
  | {
      type: 'reasoning';
      id: string;
      summary: { type: 'summary_text'; text: string }[];
      encrypted_content?: string;
    };

/** The request body. */
export interface ResponsesRequest {
  model: string;
  input: ResponsesItem[];
  instructions?: string;
  tools?: { type: 'function'; name: string; description: string; parameters: unknown }[];
  stream: boolean;
  store: boolean;
  include?: string[];
  max_output_tokens?: number;
  temperature?: number;
  [extra: string]: unknown;
}

/** An item of a response's `output`, as read (every field optional). */
export interface ResponsesOutputItem {
  type?: string;
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  content?: { type?: string; text?: string }[];
  summary?: { type?: string; text?: string }[];
  encrypted_content?: string | null;
}

export interface ResponsesUsage {
  input_tokens?: number;
  input_tokens_details?: { cached_tokens?: number };
  output_tokens?: number;
  output_tokens_details?: { reasoning_tokens?: number };
}

/** A response object (non-streaming body, or `response` of the final events). */
export interface ResponsesResponse {
  status?: string;
  model?: string;
  output?: ResponsesOutputItem[];
  usage?: ResponsesUsage | null;
  incomplete_details?: { reason?: string } | null;
  error?: { code?: string; message?: string } | null;
}

/** One streamed event's data. */
export interface ResponsesEvent {
  type?: string;
  output_index?: number;
  delta?: string;
  item?: ResponsesOutputItem;
  response?: ResponsesResponse;
  code?: string;
  message?: string;
}
