import type {
  AnthropicCacheControl,
  AnthropicRequest,
  AnthropicRequestBlock,
} from './anthropic_api.js';

/** The most `cache_control` breakpoints the API accepts in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** The beta the API wants for a 1 hour cache TTL. */
export const EXTENDED_CACHE_TTL_BETA = 'extended-cache-ttl-2025-04-11';

function cacheable(block: AnthropicRequestBlock): boolean {
  return block.type !== 'thinking' && block.type !== 'redacted_thinking';
}

/**
 * Returns the request with prompt cache breakpoints where they pay, in the API's render order
 * (tools → system → messages):
 * 1. on the last tool, so the tool list is cached on its own (it changes least);
 * 2. on the system prompt (sent as one text block to carry it), which caches tools and system;
 * 3. on the last cacheable block of the newest message, so the next request of the conversation
 *    reads everything before it from the cache (the API looks back from a breakpoint for the
 *    longest prefix it holds, so the point written by the previous request is found).
 *
 * Contract: pure (a new request, the input untouched); never more than `MAX_CACHE_BREAKPOINTS`
 * breakpoints, counting any the request already carries (`extra_body`); a part that is absent
 * gets none; thinking blocks never carry one (the API refuses it).
 */
export function with_cache_breakpoints(
  request: AnthropicRequest,
  ttl: '5m' | '1h',
): AnthropicRequest {
  const control: AnthropicCacheControl =
    ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  let left = MAX_CACHE_BREAKPOINTS - count_breakpoints(request);
  const result: AnthropicRequest = { ...request };
  if (left > 0 && result.tools !== undefined && result.tools.length > 0) {
    const tools = [...result.tools];
    const last = tools.length - 1;
    tools[last] = { ...(tools[last] as (typeof tools)[number]), cache_control: control };
    result.tools = tools;
    left -= 1;
  }
  if (left > 0 && typeof result.system === 'string' && result.system !== '') {
    result.system = [{ type: 'text', text: result.system, cache_control: control }];
    left -= 1;
  }
  const messages = result.messages;
  const newest = messages[messages.length - 1];
  if (left > 0 && newest !== undefined) {
    const content = [...newest.content];
    for (let index = content.length - 1; index >= 0; index--) {
      const block = content[index] as AnthropicRequestBlock;
      if (!cacheable(block)) continue;
      content[index] = { ...block, cache_control: control } as AnthropicRequestBlock;
      result.messages = [...messages.slice(0, -1), { ...newest, content }];
      break;
    }
  }
  return result;
}

/** How many blocks of a request carry `cache_control`. Never throws. */
export function count_breakpoints(request: AnthropicRequest): number {
  let count = 0;
  const has = (value: unknown) =>
    typeof value === 'object' && value !== null && 'cache_control' in value;
  for (const tool of request.tools ?? []) if (has(tool)) count++;
  if (Array.isArray(request.system)) for (const block of request.system) if (has(block)) count++;
  for (const message of request.messages) {
    for (const block of message.content) if (has(block)) count++;
  }
  return count;
}
