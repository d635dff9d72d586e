import type { ProviderEntry } from './config/config_schema.js';

/** What a failed model call looks like, as far as the hints need. */
interface Failure {
  kind?: string;
  provider?: string;
  model?: string;
  status?: number;
  retry_after_ms?: number;
}

const API_KEY_ENVS: Readonly<Record<string, string>> = {
  openai_compat: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
};

/** `45 s`, `5 min`, `1 h`. */
export function format_wait(ms: number): string {
  if (ms < 90_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

function failures_of(error: unknown): Failure[] {
  if (typeof error !== 'object' || error === null) return [];
  const chain = (error as { failures?: { error: Failure }[] }).failures;
  if (Array.isArray(chain)) return chain.map((entry) => entry.error);
  return [error as Failure];
}

/**
 * Lines of advice after a failed run, from what failed: a 401/403 names the variable the key is
 * read from (and says when it is unset); a refused connection to Ollama asks whether it runs, to
 * any other base URL whether its server runs; a
 * `retry-after` longer than Lich waits says how long the provider asked for. Pure; never throws.
 */
export function failure_hints(
  error: unknown,
  providers: readonly Readonly<ProviderEntry>[],
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const hints: string[] = [];
  for (const failure of failures_of(error)) {
    const entry = providers.find(
      (candidate) => candidate.kind === failure.provider && candidate.model === failure.model,
    );
    if (failure.status === 401 || failure.status === 403) {
      const variable = entry?.api_key_env ?? API_KEY_ENVS[failure.provider ?? ''];
      if (variable !== undefined) {
        hints.push(
          env[variable]
            ? `check the key in ${variable}: ${failure.provider} refused it`
            : `${variable} is not set: ${failure.provider} needs a key there`,
        );
      }
    }
    if (failure.provider === 'ollama' && failure.kind === 'network') {
      const where = entry?.base_url ?? env.OLLAMA_HOST ?? '127.0.0.1:11434';
      hints.push(
        `is Ollama running? Start it with 'ollama serve', or set OLLAMA_HOST (tried ${where})`,
      );
    }
    if (failure.provider !== 'ollama' && failure.kind === 'network' && entry?.base_url) {
      hints.push(
        `is the server at ${entry.base_url} running? Nothing answered there (check --base-url or LICH_BASE_URL)`,
      );
    }
    if (failure.status === 429 && failure.retry_after_ms !== undefined) {
      hints.push(
        `${failure.provider} asked to wait ${format_wait(failure.retry_after_ms)} (retry-after) before the next request; that is longer than Lich waits, so try later or add another provider to the chain`,
      );
    }
  }
  return [...new Set(hints)];
}
