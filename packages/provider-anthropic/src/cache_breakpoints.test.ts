import { describe, expect, it } from 'vitest';
import type { AnthropicRequest } from './anthropic_api.js';
import { count_breakpoints, with_cache_breakpoints } from './cache_breakpoints.js';

const EPHEMERAL = { type: 'ephemeral' };

function request(extra: Partial<AnthropicRequest> = {}): AnthropicRequest {
  return {
    model: 'claude-test',
    max_tokens: 100,
    stream: true,
    system: 'You are Lich.',
    tools: [
      { name: 'read_file', description: 'Reads', input_schema: { type: 'object' } },
      { name: 'grep', description: 'Searches', input_schema: { type: 'object' } },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'fix it' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'grep', input: {} }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'found' }] },
    ],
    ...extra,
  };
}

describe('with_cache_breakpoints', () => {
  it('marks the last tool, the system prompt and the newest message, as documented', () => {
    const before = request();
    const after = with_cache_breakpoints(before, '5m');
    expect(after.tools?.map((tool) => tool.cache_control)).toEqual([undefined, EPHEMERAL]);
    expect(after.system).toEqual([
      { type: 'text', text: 'You are Lich.', cache_control: EPHEMERAL },
    ]);
    expect(after.messages[2]?.content[0]).toMatchObject({ cache_control: EPHEMERAL });
    expect(after.messages[0]?.content[0]).not.toHaveProperty('cache_control');
    expect(count_breakpoints(after)).toBe(3);
    // pure: the input is untouched
    expect(count_breakpoints(before)).toBe(0);
    expect(before.system).toBe('You are Lich.');
  });

  it('sends the 1 hour TTL on every breakpoint', () => {
    const after = with_cache_breakpoints(request(), '1h');
    expect(after.tools?.[1]?.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(after.messages[2]?.content[0]).toMatchObject({
      cache_control: { type: 'ephemeral', ttl: '1h' },
    });
  });

  it('never goes past four, counting breakpoints the request already has', () => {
    const messages: AnthropicRequest['messages'] = [
      {
        role: 'user',
        content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }],
      },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'b', cache_control: { type: 'ephemeral' } }],
      },
      {
        role: 'user',
        content: [{ type: 'text', text: 'c', cache_control: { type: 'ephemeral' } }],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'd' }] },
      { role: 'user', content: [{ type: 'text', text: 'e' }] },
    ];
    const after = with_cache_breakpoints(request({ messages }), '5m');
    expect(count_breakpoints(after)).toBe(4);
    expect(after.tools?.[1]?.cache_control).toEqual(EPHEMERAL);
    expect(after.system).toBe('You are Lich.');
    for (let size = 0; size < 12; size++) {
      const many = Array.from({ length: size }, () => ({ ...messages[0] })) as typeof messages;
      expect(
        count_breakpoints(with_cache_breakpoints(request({ messages: many }), '5m')),
      ).toBeLessThanOrEqual(Math.max(4, size));
    }
  });

  it('skips thinking blocks and leaves out parts that are absent', () => {
    const after = with_cache_breakpoints(
      {
        model: 'm',
        max_tokens: 1,
        stream: false,
        messages: [
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'answer' },
              { type: 'thinking', thinking: 'hmm', signature: 's' },
            ],
          },
        ],
      },
      '5m',
    );
    expect(after.messages[0]?.content[0]).toMatchObject({ cache_control: EPHEMERAL });
    expect(after.messages[0]?.content[1]).not.toHaveProperty('cache_control');
    expect(after).not.toHaveProperty('tools');
    expect(after).not.toHaveProperty('system');
  });
});
