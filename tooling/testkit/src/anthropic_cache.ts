/**
 * The prompt cache of the Anthropic Messages API, as the fake server bills it.
 *
 * The rules followed (Anthropic's prompt caching documentation):
 * - a request is read as one sequence of blocks in the order `tools` → `system` → `messages`;
 * - a block carrying `cache_control` is a breakpoint: the prefix up to and including it is
 *   written to the cache (billed as `cache_creation_input_tokens`) unless it is already there;
 * - at most 4 breakpoints a request (more is a 400);
 * - a prefix shorter than the model's minimum cacheable length is not cached (no error);
 * - a later request reads the longest cached prefix that ends on a block boundary at most
 *   `LOOKBACK_BLOCKS` blocks before one of its breakpoints (billed as `cache_read_input_tokens`);
 * - an entry lives `ttl` (5 minutes, or 1 hour with `ttl: '1h'`) from its last use;
 * - `input_tokens` is what comes after the last cache read or write.
 */
import { createHash } from 'node:crypto';
import { estimate_tokens } from './split.js';

/** The billing of one Anthropic request, as the API reports it. */
export interface AnthropicBill {
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** The part of `cache_write_tokens` written by a breakpoint with a 1 hour TTL. */
  cache_write_1h_tokens: number;
}

/** Options of the fake Anthropic cache. */
export interface AnthropicCacheOptions {
  /** The minimum cacheable prefix, in tokens (default 1024, as Claude Sonnet and Opus 4). */
  min_tokens?: number;
  /** The clock, in ms (default `Date.now`). */
  now?: () => number;
}

/** How far back from a breakpoint the API looks for an earlier cached prefix. */
export const LOOKBACK_BLOCKS = 20;

/** The most breakpoints one request may carry. */
export const MAX_BREAKPOINTS = 4;

const TTL_MS: Record<string, number> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

interface Block {
  /** The prefix hash up to and including this block. */
  hash: string;
  /** Tokens of the prefix up to and including this block. */
  tokens: number;
  /** The breakpoint's TTL in ms, when the block carries `cache_control`. */
  ttl_ms?: number;
}

/** A request the cache refuses, as the API does with a 400. */
export class CacheRuleError extends Error {}

function without_cache_control(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const { cache_control: _dropped, ...rest } = value as Record<string, unknown>;
  return rest;
}

function ttl_of(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const control = (value as { cache_control?: unknown }).cache_control;
  if (typeof control !== 'object' || control === null) return undefined;
  const ttl = (control as { ttl?: unknown }).ttl;
  if (ttl === undefined) return TTL_MS['5m'];
  const ms = typeof ttl === 'string' ? TTL_MS[ttl] : undefined;
  if (ms === undefined)
    throw new CacheRuleError(`cache_control.ttl: "${String(ttl)}" is not 5m or 1h`);
  return ms;
}

/** The request as one list of blocks with running prefix hashes and token counts. */
export function anthropic_blocks(body: unknown): Block[] {
  const request = (typeof body === 'object' && body !== null ? body : {}) as Record<
    string,
    unknown
  >;
  const items: unknown[] = [];
  const tags: string[] = [];
  for (const tool of Array.isArray(request.tools) ? request.tools : []) {
    items.push(tool);
    tags.push('tool');
  }
  const system = request.system;
  if (typeof system === 'string') {
    items.push({ type: 'text', text: system });
    tags.push('system');
  } else if (Array.isArray(system)) {
    for (const block of system) {
      items.push(block);
      tags.push('system');
    }
  }
  for (const message of Array.isArray(request.messages) ? request.messages : []) {
    const { role, content } = message as { role?: unknown; content?: unknown };
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
    for (const block of Array.isArray(blocks) ? blocks : []) {
      items.push(block);
      tags.push(`message:${String(role)}`);
    }
  }
  const hash = createHash('sha256');
  hash.update(String(request.model));
  let tokens = 0;
  return items.map((item, index) => {
    const text = JSON.stringify(without_cache_control(item));
    hash.update(`\n${tags[index]}\n${text}`);
    tokens += estimate_tokens(text);
    const block: Block = { hash: hash.copy().digest('hex'), tokens };
    const ttl_ms = ttl_of(item);
    if (ttl_ms !== undefined) block.ttl_ms = ttl_ms;
    return block;
  });
}

/**
 * A prompt cache shared by every request to one fake server.
 *
 * Contract: `bill` never mutates the request; it throws a `CacheRuleError` for more than
 * `MAX_BREAKPOINTS` breakpoints or an unknown TTL, and otherwise returns the request's billing and
 * updates the cache. Without a breakpoint nothing is read or written.
 */
export class AnthropicCache {
  /** Prefix hash → when it expires and the TTL a use renews. */
  readonly #entries = new Map<string, { expires: number; ttl_ms: number }>();
  readonly #min_tokens: number;
  readonly #now: () => number;

  constructor(options: AnthropicCacheOptions = {}) {
    this.#min_tokens = options.min_tokens ?? 1024;
    this.#now = options.now ?? Date.now;
  }

  /** Bills one request body and updates the cache. */
  bill(body: unknown): AnthropicBill {
    const blocks = anthropic_blocks(body);
    const total = blocks[blocks.length - 1]?.tokens ?? 0;
    const breakpoints = blocks.flatMap((block, index) =>
      block.ttl_ms === undefined ? [] : [index],
    );
    if (breakpoints.length > MAX_BREAKPOINTS) {
      throw new CacheRuleError(
        `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.`,
      );
    }
    const now = this.#now();
    const live = (hash: string) => (this.#entries.get(hash)?.expires ?? 0) > now;
    // the longest cached prefix within the lookback window of a breakpoint
    let read_end = -1;
    for (const point of breakpoints) {
      for (let index = point; index >= 0 && index > point - LOOKBACK_BLOCKS; index--) {
        if (live((blocks[index] as Block).hash)) {
          read_end = Math.max(read_end, index);
          break;
        }
      }
    }
    const read = read_end < 0 ? 0 : (blocks[read_end] as Block).tokens;
    let write_end = read_end;
    for (const point of breakpoints) {
      const block = blocks[point] as Block;
      if (block.tokens < this.#min_tokens) continue;
      const ttl_ms = block.ttl_ms as number;
      const entry = live(block.hash) ? this.#entries.get(block.hash) : undefined;
      if (entry === undefined) write_end = Math.max(write_end, point);
      const kept = Math.max(ttl_ms, entry?.ttl_ms ?? 0);
      this.#entries.set(block.hash, { expires: now + kept, ttl_ms: kept });
    }
    // a hit renews the entry it read
    if (read_end >= 0) {
      const hash = (blocks[read_end] as Block).hash;
      const entry = this.#entries.get(hash);
      if (entry !== undefined) entry.expires = Math.max(entry.expires, now + entry.ttl_ms);
    }
    const written = write_end > read_end ? (blocks[write_end] as Block).tokens - read : 0;
    // each written stretch takes the TTL of the breakpoint that ends it
    let hour = 0;
    let from = read;
    for (const point of breakpoints) {
      if (point <= read_end || point > write_end) continue;
      const block = blocks[point] as Block;
      if (block.tokens < this.#min_tokens) continue;
      if (block.ttl_ms === TTL_MS['1h']) hour += block.tokens - from;
      from = block.tokens;
    }
    return {
      input_tokens: Math.max(1, total - read - written),
      cache_read_tokens: read,
      cache_write_tokens: written,
      cache_write_1h_tokens: hour,
    };
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear();
  }
}
