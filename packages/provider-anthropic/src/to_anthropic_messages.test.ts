import type { Message } from '@lich/core';
import { describe, expect, it } from 'vitest';
import { to_anthropic_messages, to_anthropic_tools } from './to_anthropic_messages.js';

describe('to_anthropic_messages', () => {
  it('lifts the system prompt, merges tool results and replays signed thinking', () => {
    const history: Message[] = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'weather in Oslo and Rome?' },
      {
        role: 'assistant',
        content: 'Looking up.',
        reasoning: 'two lookups',
        reasoning_parts: [
          { text: 'two lookups', signature: 'sig-1' },
          { text: '', redacted: 'opaque' },
          { text: 'unsigned, from another provider' },
        ],
        tool_calls: [
          { id: 'toolu_1', name: 'weather', arguments: '{"city":"Oslo"}' },
          { id: 'toolu_2', name: 'weather', arguments: 'not json' },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '3 C' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'bad arguments', is_error: true },
      { role: 'user', content: 'and tomorrow?' },
    ];
    expect(to_anthropic_messages(history)).toEqual({
      system: 'be brief',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'weather in Oslo and Rome?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'two lookups', signature: 'sig-1' },
            { type: 'redacted_thinking', data: 'opaque' },
            { type: 'text', text: 'Looking up.' },
            { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Oslo' } },
            { type: 'tool_use', id: 'toolu_2', name: 'weather', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '3 C' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              content: 'bad arguments',
              is_error: true,
            },
            { type: 'text', text: 'and tomorrow?' },
          ],
        },
      ],
    });
  });

  it('merges consecutive user turns, drops empty text and omits a missing system', () => {
    const prompt = to_anthropic_messages([
      { role: 'user', content: 'one' },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'three' },
    ]);
    expect(prompt).not.toHaveProperty('system');
    expect(prompt.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
          { type: 'text', text: 'three' },
        ],
      },
    ]);
  });

  it('joins several system messages', () => {
    const prompt = to_anthropic_messages([
      { role: 'system', content: 'a' },
      { role: 'system', content: 'b' },
      { role: 'user', content: 'hi' },
    ]);
    expect(prompt.system).toBe('a\n\nb');
  });
});

describe('to_anthropic_tools', () => {
  it('maps parameters to input_schema', () => {
    const parameters = { type: 'object', properties: {} };
    expect(to_anthropic_tools([{ name: 't', description: 'd', parameters }])).toEqual([
      { name: 't', description: 'd', input_schema: parameters },
    ]);
  });
});
