import { describe, expect, it } from 'vitest';
import { add_cost, cost_at, format_cost } from './model_price.js';
import { catalog_prices_any, load_price_book, PriceBook } from './price_book.js';

const USAGE = {
  input_tokens: 1_000_000,
  output_tokens: 100_000,
  cache_read_tokens: 600_000,
  cache_write_tokens: 200_000,
};

describe('prices', () => {
  it('bills the cached parts of the prompt at their own prices', () => {
    // 200k fresh × $3 + 600k read × $0.30 + 200k written × $3.75 + 100k out × $15
    expect(
      cost_at(USAGE, { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 }),
    ).toBeCloseTo(0.6 + 0.18 + 0.75 + 1.5, 10);
  });

  it('bills 1 hour cache writes at their own price (2× input on Anthropic), 5 minute ones at 1.25×', async () => {
    const usage = {
      input_tokens: 1_000_000,
      output_tokens: 0,
      cache_write_tokens: 400_000,
      cache_write_1h_tokens: 300_000,
    };
    // 600k fresh × $3 + 100k 5m-written × $3.75 + 300k 1h-written × $6
    const price = { input: 3, output: 15, cache_write: 3.75, cache_write_1h: 6 };
    expect(cost_at(usage, price)).toBeCloseTo(1.8 + 0.375 + 1.8, 10);
    // no 1 hour price: billed as the other writes (600k × $3 + 400k × $3.75)
    expect(cost_at(usage, { input: 3, output: 15, cache_write: 3.75 })).toBeCloseTo(3.3, 10);
    // the catalog knows Claude Sonnet 4.5's 1 hour write price: $6 against $3.75 per million
    const book = await load_price_book();
    const written = { input_tokens: 100_000, output_tokens: 0, cache_write_tokens: 100_000 };
    expect(book.cost(written, 'anthropic', 'claude-sonnet-4-5')).toBeCloseTo(0.375, 6);
    expect(
      book.cost({ ...written, cache_write_1h_tokens: 100_000 }, 'anthropic', 'claude-sonnet-4-5'),
    ).toBeCloseTo(0.6, 6);
    expect(
      book.cost({ ...written, cache_write_1h_tokens: 40_000 }, 'anthropic', 'claude-sonnet-4-5'),
    ).toBeCloseTo(0.06 * 3.75 + 0.04 * 6, 6);
    // a model the catalog has no 1 hour price for: the writes at the write price, no error
    expect(
      book.cost({ ...written, cache_write_1h_tokens: 100_000 }, 'openai_compat', 'gpt-4.1'),
    ).toBeCloseTo(0.2, 6);
  });

  it('prices a catalogued model right, from the maintained catalog', async () => {
    const book = await load_price_book();
    // Claude Sonnet 4.5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million (under
    // its 200k-token tier)
    const tenth = {
      input_tokens: 100_000,
      output_tokens: 10_000,
      cache_read_tokens: 60_000,
      cache_write_tokens: 20_000,
    };
    expect(book.cost(tenth, 'anthropic', 'claude-sonnet-4-5')).toBeCloseTo(0.303, 6);
    expect(
      book.cost({ input_tokens: 1_000_000, output_tokens: 0 }, 'openai_compat', 'gpt-4.1'),
    ).toBeCloseTo(2, 6);
  });

  it('says unknown (null), never 0, for a model without a price', async () => {
    const book = await load_price_book();
    expect(book.cost(USAGE, 'anthropic', 'claude-made-up')).toBeNull();
    expect(book.cost(USAGE, 'ollama', 'llama3.2')).toBeNull();
    expect(book.cost(USAGE, undefined, undefined)).toBeNull();
    expect(format_cost(book.cost(USAGE, 'ollama', 'llama3.2'))).toBe('unknown');
    expect(add_cost(1, null)).toBeNull();
  });

  it('asks the catalog once for a model it has no price for, every time for one it has', () => {
    const asked: string[] = [];
    const book = new PriceBook({}, (_usage, provider_id, model) => {
      asked.push(`${provider_id}/${model}`);
      return model === 'known' ? 1 : null;
    });
    for (let call = 0; call < 3; call++) {
      expect(book.cost(USAGE, 'openai_compat', 'local-model')).toBeNull();
      expect(book.cost(USAGE, 'openai_compat', 'known')).toBe(1);
    }
    expect(asked).toEqual(['openai/local-model', 'openai/known', 'openai/known', 'openai/known']);
  });

  it('takes the config prices over the catalog, by provider/model or model', async () => {
    const book = await load_price_book({
      'anthropic/claude-sonnet-4-5': { input: 1, output: 1 },
      'llama3.2': { input: 0, output: 0 },
    });
    expect(
      book.cost({ input_tokens: 1_000_000, output_tokens: 0 }, 'anthropic', 'claude-sonnet-4-5'),
    ).toBe(1);
    expect(book.cost(USAGE, 'ollama', 'llama3.2')).toBe(0);
    expect(new PriceBook({}).cost(USAGE, 'anthropic', 'claude-sonnet-4-5')).toBeNull();
  });

  it('leaves the catalog out for a chain of kinds it has no prices for, and only then', async () => {
    expect(catalog_prices_any(['ollama'])).toBe(false);
    expect(catalog_prices_any(['ollama', 'my_kind'])).toBe(false);
    expect(catalog_prices_any(['ollama', 'anthropic'])).toBe(true);
    expect(catalog_prices_any(['openai_compat'])).toBe(true);
    // no provider named: a ChatFn of the caller's, whose calls may name any provider
    expect(catalog_prices_any([])).toBe(true);
    const local = await load_price_book(
      { 'llama3.2': { input: 0, output: 0 } },
      { catalog: false },
    );
    expect(local.cost(USAGE, 'ollama', 'llama3.2')).toBe(0);
    // no catalog: a catalogued model is unknown, as for a catalog that failed to load
    expect(local.cost(USAGE, 'anthropic', 'claude-sonnet-4-5')).toBeNull();
  });

  it('formats dollars next to tokens', () => {
    expect(format_cost(0.001234)).toBe('$0.0012');
    expect(format_cost(1.256)).toBe('$1.26');
    expect(format_cost(undefined)).toBe('unknown');
  });
});
