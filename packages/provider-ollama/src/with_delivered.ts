import { ProviderError } from '@lich/providers';

/**
 * The same error, marked `delivered` when a delta had already reached `on_delta` (the router
 * must then not retry, or the text would be shown twice). Never throws.
 */
export function with_delivered(error: ProviderError, delivered: boolean): ProviderError {
  if (!delivered || error.delivered) return error;
  return new ProviderError({
    kind: error.kind,
    provider: error.provider,
    model: error.model,
    status: error.status,
    provider_message: error.provider_message,
    code: error.code,
    request_id: error.request_id,
    retry_after_ms: error.retry_after_ms,
    retryable: error.retryable,
    delivered: true,
    cause: error.cause,
  });
}
