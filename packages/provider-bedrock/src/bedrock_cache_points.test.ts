import { describe, expect, it } from 'vitest';
import type { BedrockRequest } from './bedrock_api.js';
import {
  bedrock_cache_support,
  count_cache_points,
  with_cache_points,
} from './bedrock_cache_points.js';

const POINT = { cachePoint: { type: 'default' } };
const TOOL = { toolSpec: { name: 'grep', description: 'Searches', inputSchema: { json: {} } } };

function request(extra: Partial<BedrockRequest> = {}): BedrockRequest {
  return {
    toolConfig: { tools: [TOOL] },
    system: [{ text: 'You are Lich.' }],
    messages: [
      { role: 'user', content: [{ text: 'fix it' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'grep', input: {} } }] },
      {
        role: 'user',
        content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'found' }] } }],
      },
    ],
    ...extra,
  };
}

describe('bedrock_cache_support', () => {
  it('knows the models that cache, through a cross-region prefix', () => {
    expect(bedrock_cache_support('anthropic.claude-3-7-sonnet-20250219-v1:0')).toEqual({
      cache: true,
      tools: true,
      ttl_1h: false,
    });
    expect(bedrock_cache_support('us.anthropic.claude-3-5-haiku-20241022-v1:0').cache).toBe(true);
    expect(bedrock_cache_support('anthropic.claude-sonnet-4-20250514-v1:0')).toEqual({
      cache: true,
      tools: true,
      ttl_1h: false,
    });
    expect(bedrock_cache_support('global.anthropic.claude-sonnet-4-5-20250929-v1:0')).toEqual({
      cache: true,
      tools: true,
      ttl_1h: true,
    });
    expect(bedrock_cache_support('eu.anthropic.claude-opus-4-1-20250805-v1:0').ttl_1h).toBe(false);
    expect(bedrock_cache_support('amazon.nova-pro-v1:0')).toEqual({
      cache: true,
      tools: false,
      ttl_1h: false,
    });
  });

  it('does not cache for models that refuse cache points, or ids it cannot read', () => {
    for (const model of [
      'anthropic.claude-3-5-sonnet-20240620-v1:0',
      'anthropic.claude-3-haiku-20240307-v1:0',
      'meta.llama3-70b-instruct-v1:0',
      'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc',
    ]) {
      expect(bedrock_cache_support(model).cache, model).toBe(false);
    }
  });
});

describe('with_cache_points', () => {
  it('puts a point after the tools, after the system prompt and at the end of the newest message', () => {
    const before = request();
    const after = with_cache_points(before, { tools: true });
    expect(after.toolConfig?.tools).toEqual([TOOL, POINT]);
    expect(after.system).toEqual([{ text: 'You are Lich.' }, POINT]);
    expect(after.messages[2]?.content).toEqual([
      { toolResult: { toolUseId: 't1', content: [{ text: 'found' }] } },
      POINT,
    ]);
    expect(after.messages[0]?.content).toEqual([{ text: 'fix it' }]);
    expect(count_cache_points(after)).toBe(3);
    // pure: the input is untouched
    expect(count_cache_points(before)).toBe(0);
  });

  it('leaves the tools alone when the model caches none there, and sends a 1 hour TTL', () => {
    const after = with_cache_points(request(), { tools: false, ttl: '1h' });
    const hour = { cachePoint: { type: 'default', ttl: '1h' } };
    expect(after.toolConfig?.tools).toEqual([TOOL]);
    expect(after.system?.at(-1)).toEqual(hour);
    expect(after.messages[2]?.content.at(-1)).toEqual(hour);
    expect(count_cache_points(after)).toBe(2);
  });

  it('never goes past four, counting points the request already has, and skips absent parts', () => {
    const crowded = request({
      messages: [
        { role: 'user', content: [{ text: 'a' }, POINT as never] },
        { role: 'assistant', content: [{ text: 'b' }] },
        { role: 'user', content: [{ text: 'c' }, POINT as never] },
      ],
    });
    const after = with_cache_points(crowded, { tools: true });
    expect(count_cache_points(after)).toBe(4);
    expect(after.toolConfig?.tools.at(-1)).toEqual(POINT);
    expect(after.system?.at(-1)).toEqual(POINT);
    expect(after.messages[2]?.content).toEqual([{ text: 'c' }, POINT]);
    const bare: BedrockRequest = { messages: [{ role: 'user', content: [{ text: 'hi' }] }] };
    expect(with_cache_points(bare, { tools: true })).toEqual({
      messages: [{ role: 'user', content: [{ text: 'hi' }, POINT] }],
    });
  });
});
