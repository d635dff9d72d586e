import { z } from 'zod';

const DOLLARS_PER_MILLION = z.number().min(0);

/** One model's price, in dollars per million tokens. */
export const MODEL_PRICE_SCHEMA = z
  .object({
    input: DOLLARS_PER_MILLION.describe('Dollars per million input tokens.'),
    output: DOLLARS_PER_MILLION.describe('Dollars per million output tokens.'),
    cache_read: DOLLARS_PER_MILLION.optional().describe(
      'Dollars per million tokens read from the prompt cache (default: input).',
    ),
    cache_write: DOLLARS_PER_MILLION.optional().describe(
      'Dollars per million tokens written to the prompt cache (default: input).',
    ),
    cache_write_1h: DOLLARS_PER_MILLION.optional().describe(
      'Dollars per million tokens written to the prompt cache with a 1 hour TTL (default: cache_write).',
    ),
  })
  .describe('A price in dollars per million tokens.');

/** `prices`: overrides and additions to the catalog, keyed `<kind>/<model>` or `<model>`. */
export const PRICES_SCHEMA = z
  .record(z.string().min(1), MODEL_PRICE_SCHEMA)
  .describe(
    'Model prices over the built-in catalog (@pydantic/genai-prices), keyed "<provider kind>/<model>" or "<model>", e.g. { "ollama/llama3.2": { "input": 0, "output": 0 } }.',
  );

const USD = z.number().positive();

/** `budget`: the dollars a session, a work dir per day, or a gateway sender may spend. */
export const BUDGET_SCHEMA = z
  .object({
    session_usd: USD.optional().describe('Dollars one session may spend (like --max-budget-usd).'),
    day_usd: USD.optional().describe(
      'Dollars all sessions of this work dir may spend per day (UTC).',
    ),
    sender_day_usd: USD.optional().describe(
      'Gateways: dollars one sender may spend per day (UTC).',
    ),
    conversation_usd: USD.optional().describe('Gateways: dollars one conversation may spend.'),
  })
  .describe(
    'Spending limits. Before each model call its worst case (the prompt, plus max_tokens at the output price) is reserved; a call that would cross a limit is not made.',
  );

/** The `prices` key, as parsed. */
export type PricesConfig = z.infer<typeof PRICES_SCHEMA>;

/** The `budget` key, as parsed. */
export type BudgetConfig = z.infer<typeof BUDGET_SCHEMA>;
