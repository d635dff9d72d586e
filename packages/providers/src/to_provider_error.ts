import type { CallContext } from './call_context.js';
import { ProviderError } from './provider_error.js';
import { StreamParseError } from './stream_parse_error.js';

/** Who failed, and the caller's signal: once it has fired, any failure is reported as `aborted`. */
export type ProviderErrorContext = CallContext & { signal?: AbortSignal | undefined };

function is_abort_error(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (Reflect.get(error, 'name') === 'AbortError' || Reflect.get(error, 'name') === 'TimeoutError')
  );
}

/** The innermost useful cause of a fetch failure (`fetch failed` → `connect ECONNREFUSED …`). */
export function network_cause(error: unknown): Error {
  let current: unknown = error;
  for (let depth = 0; depth < 4; depth++) {
    const cause: unknown =
      typeof current === 'object' && current !== null ? Reflect.get(current, 'cause') : undefined;
    if (cause === undefined) break;
    current = cause;
  }
  if (current instanceof AggregateError && current.errors[0] instanceof Error) {
    current = current.errors[0];
  }
  if (current instanceof Error && current.message !== '') return current;
  if (current instanceof Error) {
    const code = Reflect.get(current, 'code');
    if (typeof code === 'string') return new Error(code);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** Node's words for a peer that closed a connection while a response was being read. */
const PEER_CLOSED = new Set(['aborted', 'Premature close', 'other side closed']);

/**
 * A `network` error (retryable): no connection was made or it failed before an answer, e.g.
 * `connect ECONNREFUSED 127.0.0.1:1234`, `getaddrinfo ENOTFOUND host`, `socket hang up`.
 */
export function connection_error(error: unknown, context: ProviderErrorContext): ProviderError {
  return new ProviderError({
    provider: context.provider,
    model: context.model,
    kind: 'network',
    cause: network_cause(error),
  });
}

/**
 * A `stream` error (retryable): the connection broke while the body was being read. A peer that
 * closed it reads "the connection broke mid-stream (other side closed)", whether undici (`other
 * side closed`) or `node:http` (`aborted`, `Premature close`) said so.
 */
export function cut_error(error: unknown, context: ProviderErrorContext): ProviderError {
  const cause = network_cause(error);
  const reason = PEER_CLOSED.has(cause.message) ? 'other side closed' : cause.message;
  return new ProviderError({
    provider: context.provider,
    model: context.model,
    kind: 'stream',
    cause: new Error(`the connection broke mid-stream (${reason})`, { cause: error }),
  });
}

/**
 * Turns anything a provider call threw into a `ProviderError`.
 *
 * Contract: a `ProviderError` is returned as is; when `context.signal` has fired, or the error is
 * an `AbortError`, the result is kind `aborted`; a `StreamParseError` or `SyntaxError` is
 * `parse`; undici's `fetch failed` is `network` and `terminated` (a body cut off) is `stream`,
 * both naming the underlying cause; anything else is an unexpected error that is not retried.
 * Never throws.
 */
export function to_provider_error(error: unknown, context: ProviderErrorContext): ProviderError {
  if (ProviderError.is_instance(error)) return error;
  const base = { provider: context.provider, model: context.model };
  if (context.signal?.aborted || is_abort_error(error)) {
    return new ProviderError({
      ...base,
      kind: 'aborted',
      cause: new Error('the request was aborted'),
    });
  }
  if (StreamParseError.is_instance(error)) {
    return new ProviderError({ ...base, kind: 'parse', cause: error });
  }
  if (error instanceof SyntaxError) {
    const cause = new Error(`invalid JSON in the answer: ${error.message}`, { cause: error });
    return new ProviderError({ ...base, kind: 'parse', cause });
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    return connection_error(error, base);
  }
  if (error instanceof TypeError && error.message === 'terminated') return cut_error(error, base);
  const cause = error instanceof Error ? error : new Error(String(error));
  return new ProviderError({
    ...base,
    kind: 'stream',
    retryable: false,
    cause: new Error(`unexpected error: ${cause.message}`, { cause }),
  });
}
