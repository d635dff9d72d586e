import type { Message } from '@lich/core';
import type { ProviderConfig } from '@lich/providers';
import { type ContractConfig, provider_harness, WEATHER_TOOL } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { BEDROCK_KIND, create_bedrock_provider } from '../src/index.js';

const CREDENTIALS = { access_key_id: 'AKIDTEST', secret_access_key: 'secret-test' };
const SONNET_45 = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const POINT = { cachePoint: { type: 'default' } };
type Config = Partial<ProviderConfig> & ContractConfig;

const bedrock = provider_harness<Config>({
  format: 'bedrock',
  create: (config) =>
    create_bedrock_provider({
      kind: BEDROCK_KIND,
      model: SONNET_45,
      ...config,
      options: { credentials: CREDENTIALS, region: 'eu-west-1', ...config.options },
    }),
});

const WEATHER_SPEC = {
  toolSpec: {
    name: 'weather',
    description: 'Current weather',
    inputSchema: { json: WEATHER_TOOL.parameters },
  },
};

describe('Bedrock prompt caching', () => {
  it('sends cache points after the tools, the system prompt and the newest message', async () => {
    bedrock.server.enqueue({
      text: 'Hi!',
      usage: { input_tokens: 3000, output_tokens: 2, cache_write_tokens: 2900 },
    });
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello' },
    ];
    const { request, result } = await bedrock.chat(messages, {
      tools: [WEATHER_TOOL],
      max_tokens: 64,
    });
    expect(request?.body).toEqual({
      toolConfig: { tools: [WEATHER_SPEC, POINT] },
      system: [{ text: 'Be brief.' }, POINT],
      messages: [{ role: 'user', content: [{ text: 'hello' }, POINT] }],
      inferenceConfig: { maxTokens: 64 },
    });
    expect(result.usage).toEqual({
      input_tokens: 3000,
      output_tokens: 2,
      cache_write_tokens: 2900,
    });
  });

  it('starts each request of a conversation with the previous one, byte for byte, up to its last cache point', async () => {
    const history: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'weather in Oslo?' },
    ];
    bedrock.server.enqueue(
      { tool_calls: [{ name: 'weather', arguments: { city: 'Oslo' } }] },
      { tool_calls: [{ name: 'weather', arguments: { city: 'Rome' } }] },
      { text: 'Cold, then warm.', usage: { input_tokens: 400, cache_read_tokens: 350 } },
    );
    const bodies: string[] = [];
    for (let turn = 0; turn < 3; turn++) {
      const { request, result } = await bedrock.chat(history, { tools: [WEATHER_TOOL] });
      bodies.push(request?.raw_body ?? '');
      history.push(result.message);
      for (const call of result.message.tool_calls ?? []) {
        history.push({ role: 'tool', tool_call_id: call.id, content: `${turn} °C` });
      }
      if (turn === 2) expect(result.usage?.cache_read_tokens).toBe(350);
    }
    for (let index = 1; index < bodies.length; index++) {
      const previous = bodies[index - 1] ?? '';
      const cut = previous.lastIndexOf(',{"cachePoint"');
      expect(cut).toBeGreaterThan(0);
      expect(bodies[index]?.slice(0, cut)).toBe(previous.slice(0, cut));
      // and the point itself was at the end of what is now an older message
      expect(JSON.parse(previous).messages.at(-1).content.at(-1)).toEqual(POINT);
    }
  });

  it('honours cache.enabled and cache.ttl, and sends nothing to a model that does not cache', async () => {
    bedrock.server.enqueue({ text: 'a' }, { text: 'b' });
    const hello: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello' },
    ];
    const off = await bedrock.chat(hello, { config: { cache: { enabled: false } } });
    expect(off.request?.raw_body).not.toContain('cachePoint');

    const old = await bedrock.chat(hello, {
      config: { model: 'anthropic.claude-3-5-sonnet-20240620-v1:0' },
    });
    expect(old.request?.raw_body).not.toContain('cachePoint');

    const hour = { cachePoint: { type: 'default', ttl: '1h' } };
    bedrock.server.enqueue({
      text: 'e',
      usage: { input_tokens: 3000, cache_write_tokens: 2900, cache_write_1h_tokens: 2900 },
    });
    const long = await bedrock.chat(hello, { config: { cache: { ttl: '1h' } } });
    expect(long.request?.body).toMatchObject({
      system: [{ text: 'Be brief.' }, hour],
      messages: [{ role: 'user', content: [{ text: 'hello' }, hour] }],
    });
    // the 1 hour writes, reported by Converse in cacheDetails, are told apart for pricing
    expect(long.result.usage).toMatchObject({
      cache_write_tokens: 2900,
      cache_write_1h_tokens: 2900,
    });

    // Nova caches the system prompt and messages, not the tools; no 1 hour TTL
    bedrock.server.enqueue({ text: 'd' });
    const nova = await bedrock.chat(hello, {
      tools: [WEATHER_TOOL],
      config: { model: 'amazon.nova-pro-v1:0', cache: { ttl: '1h' } },
    });
    expect(nova.request?.body).toMatchObject({
      toolConfig: { tools: [WEATHER_SPEC] },
      system: [{ text: 'Be brief.' }, POINT],
      messages: [{ role: 'user', content: [{ text: 'hello' }, POINT] }],
    });
  });
});
