import { describe, expect, it } from 'vitest';
import { to_ollama_messages } from './to_ollama_messages.js';

describe('to_ollama_messages', () => {
  it('maps roles, tool calls with object arguments, thinking and tool_name', () => {
    expect(
      to_ollama_messages([
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: '',
          reasoning: 'two calls',
          tool_calls: [
            { id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' },
            { id: 'c2', name: 'clock', arguments: '[1]' },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: '3 C' },
        { role: 'tool', tool_call_id: 'c2', name: 'clock_v2', content: 'bad', is_error: true },
        { role: 'assistant', content: 'Done.' },
      ]),
    ).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: '',
        thinking: 'two calls',
        tool_calls: [
          { function: { name: 'weather', arguments: { city: 'Oslo' } } },
          { function: { name: 'clock', arguments: {} } },
        ],
      },
      { role: 'tool', content: '3 C', tool_name: 'weather' },
      { role: 'tool', content: 'bad', tool_name: 'clock_v2' },
      { role: 'assistant', content: 'Done.' },
    ]);
  });
});
