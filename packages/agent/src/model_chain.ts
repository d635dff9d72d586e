import type { ProviderEntry } from './config/config_schema.js';

/**
 * The failover chain for a session that asked for `spec` (`model` or `provider/model`): the
 * matching entry first and the rest behind it in their order; a `provider/model` whose provider
 * is in the chain but whose model is not gets that provider's entry with the model replaced.
 * Null when nothing in the chain matches. Pure; never throws.
 */
export function chain_for_model(
  providers: readonly Readonly<ProviderEntry>[],
  spec: string,
): Readonly<ProviderEntry>[] | null {
  const wanted = spec.trim();
  if (wanted === '') return null;
  const slash = wanted.indexOf('/');
  const kind = slash > 0 ? wanted.slice(0, slash) : undefined;
  const model = slash > 0 ? wanted.slice(slash + 1) : wanted;
  const exact = providers.findIndex(
    (entry) =>
      (entry.model === wanted && kind === undefined) ||
      (entry.model === model && (kind === undefined || entry.kind === kind)),
  );
  // a model name that itself has a slash (`openrouter/anthropic/claude`) is matched whole first
  const whole = exact === -1 ? providers.findIndex((entry) => entry.model === wanted) : -1;
  const found = exact !== -1 ? exact : whole;
  if (found !== -1) {
    const first = providers[found] as Readonly<ProviderEntry>;
    return [first, ...providers.filter((_, index) => index !== found)];
  }
  if (kind === undefined || model === '') return null;
  const same_kind = providers.findIndex((entry) => entry.kind === kind);
  if (same_kind === -1) return null;
  const base = providers[same_kind] as Readonly<ProviderEntry>;
  return [{ ...base, model }, ...providers.filter((_, index) => index !== same_kind)];
}
