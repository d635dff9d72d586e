import type { StatusFault, WireFormat } from './script.js';

const DEFAULT_MESSAGES: Record<number, string> = {
  400: 'Invalid request.',
  401: 'Incorrect API key provided.',
  402: 'Your credit balance is too low.',
  403: 'You are not allowed to use this model.',
  404: 'The model does not exist or you do not have access to it.',
  408: 'Request timed out.',
  409: 'Conflict, please retry.',
  413: 'Request exceeds the maximum allowed size.',
  429: 'Rate limit reached for requests.',
  500: 'The server had an error while processing your request.',
  502: 'Bad gateway.',
  503: 'The engine is currently overloaded, please try again later.',
  504: 'Gateway timeout.',
  529: 'Overloaded',
};

const OPENAI_TYPES: Record<number, [string, string | null]> = {
  400: ['invalid_request_error', null],
  401: ['invalid_request_error', 'invalid_api_key'],
  403: ['invalid_request_error', 'unsupported_country_region_territory'],
  404: ['invalid_request_error', 'model_not_found'],
  429: ['requests', 'rate_limit_exceeded'],
};

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** The default error message of a status. */
export function default_error_message(status: number): string {
  return DEFAULT_MESSAGES[status] ?? `HTTP ${status}`;
}

/**
 * The body each provider sends with an error status: OpenAI `{ error: { message, type, param,
 * code } }`, Anthropic `{ type: 'error', error: { type, message }, request_id }`, Ollama
 * `{ error: '…' }`, Gemini `{ error: { code, message, status } }`.
 */
export function error_body(
  format: WireFormat,
  fault: Pick<StatusFault, 'status' | 'message' | 'type' | 'code'>,
  request_id: string,
): Record<string, unknown> {
  const message = fault.message ?? default_error_message(fault.status);
  if (format === 'openai') {
    const [type, code] = OPENAI_TYPES[fault.status] ?? [
      fault.status >= 500 ? 'server_error' : 'invalid_request_error',
      null,
    ];
    return {
      error: {
        message,
        type: fault.type ?? type,
        param: null,
        code: fault.code === undefined ? code : fault.code,
      },
    };
  }
  if (format === 'anthropic') {
    const type =
      fault.type ??
      ANTHROPIC_TYPES[fault.status] ??
      (fault.status >= 500 ? 'api_error' : 'invalid_request_error');
    return { type: 'error', error: { type, message }, request_id };
  }
  if (format === 'bedrock') return { message };
  if (format === 'gemini') {
    return {
      error: {
        code: fault.status,
        message,
        status: fault.type ?? GEMINI_STATUS[fault.status] ?? 'UNKNOWN',
      },
    };
  }
  return { error: message };
}

const GEMINI_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};
