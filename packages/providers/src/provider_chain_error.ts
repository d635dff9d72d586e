import { failure_facts, ProviderError } from './provider_error.js';

/** One provider's failure within a chain. */
export interface ChainFailure {
  error: ProviderError;
  /** How many requests were made to it (1 + retries); 0 when it could not be built. */
  attempts: number;
}

function describe_chain(failures: readonly ChainFailure[]): string {
  const parts = failures.map(({ error, attempts }) => {
    if (attempts === 0) return error.message;
    return `${error.message} (${attempts === 1 ? '1 attempt' : `${attempts} attempts`})`;
  });
  return `all ${failures.length} providers failed: ${parts.join('; ')}`;
}

/**
 * Every provider of the chain failed. Its `message` lists each provider, model and why; its other
 * fields (`kind`, `status`, `provider`, …) are those of the last failure; `failures` holds them
 * all. It is a `ProviderError` (`ProviderError.is_instance` holds) and is not retryable.
 */
export class ProviderChainError extends ProviderError {
  readonly failures: readonly ChainFailure[];

  constructor(failures: readonly ChainFailure[]) {
    const last = failures.at(-1);
    if (last === undefined) throw new Error('ProviderChainError needs at least one failure');
    const error = last.error;
    super({
      ...failure_facts(error),
      retryable: false,
      message: describe_chain(failures),
      cause: error,
    });
    this.name = 'ProviderChainError';
    this.failures = failures;
  }
}
