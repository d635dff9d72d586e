import type { BedrockCachePoint, BedrockRequest } from './bedrock_api.js';

/** The most cache points Converse accepts in one request. */
export const MAX_CACHE_POINTS = 4;

/** What a model takes of Converse prompt caching. */
export interface BedrockCacheSupport {
  /** Whether the model caches at all (a `cachePoint` sent to one that does not is refused). */
  cache: boolean;
  /** Whether a cache point may follow the tools (Claude: yes; Amazon Nova: system and messages). */
  tools: boolean;
  /** Whether the model takes `ttl: '1h'` (Claude 4.5 and later). */
  ttl_1h: boolean;
}

const NONE: BedrockCacheSupport = { cache: false, tools: false, ttl_1h: false };

/**
 * What prompt caching a Bedrock model id takes, from its name: Claude 3.5 Haiku, 3.7 Sonnet and
 * the Claude 4 family (1 hour TTL from 4.5 on), Amazon Nova (no cache point after the tools). A
 * cross-region prefix (`us.`, `eu.`, `global.`…) is looked through; an ARN or any other id is
 * not known to cache.
 *
 * Contract: pure, never throws.
 */
export function bedrock_cache_support(model: string): BedrockCacheSupport {
  const id = model.toLowerCase().replace(/^(?:global|us-gov|us|eu|apac|ap|jp|au|ca)\./, '');
  if (/^amazon\.nova-/.test(id)) return { cache: true, tools: false, ttl_1h: false };
  if (/^anthropic\.claude-3-5-haiku/.test(id) || /^anthropic\.claude-3-7-sonnet/.test(id)) {
    return { cache: true, tools: true, ttl_1h: false };
  }
  const claude = /^anthropic\.claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d{1,2})(?!\d))?/.exec(id);
  if (claude === null) return NONE;
  const major = Number(claude[1]);
  const minor = claude[2] === undefined ? 0 : Number(claude[2]);
  if (major < 4) return NONE;
  return { cache: true, tools: true, ttl_1h: major > 4 || minor >= 5 };
}

/** How a request is marked: the TTL sent (none: the 5 minute default) and where points may go. */
export interface CachePointPlan {
  ttl?: '1h';
  tools: boolean;
}

/**
 * Returns the request with `cachePoint` blocks where Anthropic's breakpoints go, in the order the
 * prompt is read (tools → system → messages):
 * 1. after the last tool (when the plan allows it), so the tool list is cached on its own;
 * 2. after the system prompt;
 * 3. at the end of the newest message, so the next request of the conversation reads everything
 *    before it from the cache.
 *
 * Contract: pure (a new request, the input untouched); never more than `MAX_CACHE_POINTS`,
 * counting any the request already carries; a part that is absent gets none. Only new arrays are
 * appended to, so the blocks before a point are byte for byte those of the request without it.
 */
export function with_cache_points(request: BedrockRequest, plan: CachePointPlan): BedrockRequest {
  const point = (): BedrockCachePoint => ({
    cachePoint: plan.ttl === undefined ? { type: 'default' } : { type: 'default', ttl: plan.ttl },
  });
  let left = MAX_CACHE_POINTS - count_cache_points(request);
  const result: BedrockRequest = { ...request };
  const tools = result.toolConfig?.tools;
  if (left > 0 && plan.tools && result.toolConfig !== undefined && tools && tools.length > 0) {
    result.toolConfig = { ...result.toolConfig, tools: [...tools, point()] };
    left -= 1;
  }
  if (left > 0 && result.system !== undefined && result.system.length > 0) {
    result.system = [...result.system, point()];
    left -= 1;
  }
  const newest = result.messages.at(-1);
  if (left > 0 && newest !== undefined) {
    result.messages = [
      ...result.messages.slice(0, -1),
      { ...newest, content: [...newest.content, point()] },
    ];
  }
  return result;
}

/** How many `cachePoint` blocks a request carries. Never throws. */
export function count_cache_points(request: BedrockRequest): number {
  let count = 0;
  const has = (value: unknown) =>
    typeof value === 'object' && value !== null && 'cachePoint' in value;
  for (const tool of request.toolConfig?.tools ?? []) if (has(tool)) count++;
  for (const block of request.system ?? []) if (has(block)) count++;
  for (const message of request.messages) {
    for (const block of message.content) if (has(block)) count++;
  }
  return count;
}
