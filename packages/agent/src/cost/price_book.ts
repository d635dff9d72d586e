import type { Usage } from '@lich/core';
import { cost_at, type ModelPrice } from './model_price.js';

/** The catalog's provider id for each Lich provider kind it knows. */
const CATALOG_PROVIDERS: Readonly<Record<string, string>> = {
  anthropic: 'anthropic',
  openai_compat: 'openai',
  gemini: 'google',
  bedrock: 'aws',
};

/** What a `PriceBook` asks the catalog: the dollars of one call, or null when it has no price. */
export type CatalogPrice = (usage: Usage, provider_id: string, model: string) => number | null;

/**
 * Prices model calls: the config's `prices` first (keyed `<kind>/<model>` or `<model>`), then the
 * maintained catalog (`@pydantic/genai-prices`) for the kinds it covers.
 *
 * Contract: `cost` never throws; it returns null, never 0, for a model neither knows (a local
 * model, a new one): a cost is "unknown" rather than wrong.
 */
export class PriceBook {
  readonly #overrides: Readonly<Record<string, ModelPrice>>;
  readonly #catalog: CatalogPrice | undefined;
  /**
   * `<provider id>/<model>` the catalog has no price for (a local model, a custom one): looked up
   * once, not on every call (a catalog search costs some 0.2 ms while the process is young).
   */
  readonly #unknown = new Set<string>();

  constructor(overrides: Readonly<Record<string, ModelPrice>>, catalog?: CatalogPrice) {
    this.#overrides = overrides;
    this.#catalog = catalog;
  }

  /** The dollars of one model call of `provider` (a Lich kind) and `model`, or null. */
  cost(usage: Usage, provider: string | undefined, model: string | undefined): number | null {
    if (model === undefined) return null;
    const price =
      (provider === undefined ? undefined : this.#overrides[`${provider}/${model}`]) ??
      this.#overrides[model];
    if (price !== undefined) return cost_at(usage, price);
    const provider_id = provider === undefined ? undefined : CATALOG_PROVIDERS[provider];
    if (provider_id === undefined || this.#catalog === undefined) return null;
    const key = `${provider_id}/${model}`;
    if (this.#unknown.has(key)) return null;
    try {
      const dollars = this.#catalog(usage, provider_id, model);
      if (dollars === null) this.#unknown.add(key);
      return dollars;
    } catch {
      return null;
    }
  }

  /** Whether a model has a price (the override or the catalog). */
  knows(provider: string | undefined, model: string | undefined): boolean {
    return this.cost({ input_tokens: 1, output_tokens: 1 }, provider, model) !== null;
  }
}

/**
 * Whether the catalog can price a call of any of `kinds` (Lich provider kinds): false when each
 * is a kind it has no prices for (an Ollama-only chain), true for none at all (a library user's
 * own `ChatFn`, whose results may name any provider).
 */
export function catalog_prices_any(kinds: readonly string[]): boolean {
  return kinds.length === 0 || kinds.some((kind) => Object.hasOwn(CATALOG_PROVIDERS, kind));
}

/**
 * Loads the catalog (imported on first use, so start-up never pays for it) into a `PriceBook`
 * with `overrides` on top. A catalog that cannot be loaded leaves the overrides alone. With
 * `catalog: false` the catalog is not imported at all (see `catalog_prices_any`): importing it
 * costs a one-shot some 40 ms of CPU and 6 MB of memory, for prices a local model never has.
 */
export async function load_price_book(
  overrides: Readonly<Record<string, ModelPrice>> = {},
  options: { catalog?: boolean } = {},
): Promise<PriceBook> {
  if (options.catalog === false) return new PriceBook(overrides);
  try {
    const { calcPrice } = await import('@pydantic/genai-prices');
    const catalog: CatalogPrice = (usage, provider_id, model) => {
      const input = Math.max(
        usage.input_tokens,
        (usage.cache_read_tokens ?? 0) + (usage.cache_write_tokens ?? 0),
      );
      const write = usage.cache_write_tokens ?? 0;
      // the catalog prices the 1 hour writes (a part of the writes) on their own where it knows
      // the model's 1 hour price, else as the other writes
      const hour = Math.min(write, usage.cache_write_1h_tokens ?? 0);
      const result = calcPrice(
        {
          input_tokens: input,
          output_tokens: usage.output_tokens,
          cache_read_tokens: usage.cache_read_tokens ?? 0,
          cache_write_tokens: write,
          ...(hour > 0 ? { cache_write_1h_tokens: hour } : {}),
        },
        model,
        { providerId: provider_id },
      );
      return result === null ? null : result.total_price;
    };
    return new PriceBook(overrides, catalog);
  } catch {
    return new PriceBook(overrides);
  }
}
