import type { Message } from '@lich/core';
import { describe, expect, it } from 'vitest';
import { to_openai_messages } from './to_openai_messages.js';

const history: Message[] = [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: 'weather in Oslo and Rome?' },
  {
    role: 'assistant',
    content: '',
    reasoning: 'two lookups',
    tool_calls: [
      { id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
      { id: 'call_2', name: 'weather', arguments: '' },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', name: 'weather', content: '3 C' },
  { role: 'tool', tool_call_id: 'call_2', name: 'weather', content: 'no city', is_error: true },
  { role: 'assistant', content: 'Oslo is 3 C.' },
];

describe('to_openai_messages', () => {
  it('maps every role, parallel tool calls and tool results', () => {
    expect(to_openai_messages(history)).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'weather in Oslo and Rome?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Oslo"}' },
          },
          { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '3 C' },
      { role: 'tool', tool_call_id: 'call_2', content: 'no city' },
      { role: 'assistant', content: 'Oslo is 3 C.' },
    ]);
  });

  it('sends reasoning back only under the field it is told', () => {
    expect(to_openai_messages(history)[2]).not.toHaveProperty('reasoning_content');
    expect(to_openai_messages(history, 'reasoning_content')[2]).toMatchObject({
      reasoning_content: 'two lookups',
    });
    expect(to_openai_messages(history, 'reasoning')[2]).toMatchObject({ reasoning: 'two lookups' });
  });

  it('does not mutate its input', () => {
    const copy = structuredClone(history);
    to_openai_messages(history, 'reasoning');
    expect(history).toEqual(copy);
  });
});
