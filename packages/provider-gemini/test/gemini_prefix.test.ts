import type { Message } from '@lich/core';
import type { ProviderConfig } from '@lich/providers';
import { type ContractConfig, provider_harness, WEATHER_TOOL } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { create_gemini_provider, GEMINI_KIND } from '../src/index.js';

type Config = Partial<ProviderConfig> & ContractConfig;

const gemini = provider_harness<Config>({
  format: 'gemini',
  create: (config) =>
    create_gemini_provider({
      kind: GEMINI_KIND,
      model: 'gemini-2.5-flash',
      api_key: 'g-test',
      ...config,
    }),
});

const GREP_TOOL = {
  name: 'grep',
  description: 'Searches',
  parameters: { type: 'object', properties: { pattern: { type: 'string' } } },
};

/** A body up to the end of its contents' last entry (the closing `]` of `contents` left out). */
function up_to_contents_end(raw: string): string {
  const after = raw.indexOf('],"generationConfig"');
  return after === -1 ? raw.slice(0, raw.lastIndexOf(']')) : raw.slice(0, after);
}

describe('Gemini implicit caching: a byte-stable prefix', () => {
  it('lists system, tools and contents in that order, each request starting with the previous one', async () => {
    const history: Message[] = [
      { role: 'system', content: 'You are Lich. Follow the rules.' },
      { role: 'user', content: 'weather in Oslo, then Rome?' },
    ];
    gemini.server.enqueue(
      { tool_calls: [{ name: 'weather', arguments: { city: 'Oslo' } }] },
      { tool_calls: [{ name: 'weather', arguments: { city: 'Rome' } }] },
      {
        text: 'Cold, then warm.',
        usage: { input_tokens: 2400, output_tokens: 5, cache_read_tokens: 2048 },
      },
    );
    const bodies: string[] = [];
    let last_usage: unknown;
    for (let turn = 0; turn < 3; turn++) {
      const { request, result } = await gemini.chat(history, {
        tools: [WEATHER_TOOL, GREP_TOOL],
        max_tokens: 512,
      });
      bodies.push(request?.raw_body ?? '');
      history.push(result.message);
      for (const call of result.message.tool_calls ?? []) {
        history.push({ role: 'tool', tool_call_id: call.id, content: `${turn} °C` });
      }
      last_usage = result.usage;
    }
    const first = JSON.parse(bodies[0] ?? '{}') as Record<string, unknown>;
    expect(Object.keys(first)).toEqual([
      'systemInstruction',
      'tools',
      'contents',
      'generationConfig',
    ]);
    for (let index = 1; index < bodies.length; index++) {
      const previous = up_to_contents_end(bodies[index - 1] ?? '');
      expect(previous.length).toBeGreaterThan(100);
      expect(bodies[index]?.slice(0, previous.length)).toBe(previous);
    }
    // the implicit cache's hits come back as cached tokens
    expect(last_usage).toMatchObject({ input_tokens: 2400, cache_read_tokens: 2048 });
  });
});
