import type { Message } from '@lich/core';
import { describe, expect, it } from 'vitest';
import { trim_history } from './trim_history.js';

const user = (content: string): Message => ({ role: 'user', content });
const answer = (content: string): Message => ({ role: 'assistant', content });

describe('trim_history', () => {
  it('keeps the last messages from a user message on, and the system prompt', () => {
    const history: Message[] = [
      { role: 'system', content: 's' },
      user('1'),
      answer('a1'),
      user('2'),
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c', name: 'read_file', arguments: '{}' }],
      },
      { role: 'tool', tool_call_id: 'c', name: 'read_file', content: 'x' },
      answer('a2'),
      user('3'),
      answer('a3'),
    ];
    expect(trim_history(history, 20)).toBe(history);
    const trimmed = trim_history(history, 4).map((message) => message.content);
    expect(trimmed).toEqual(['s', '3', 'a3']);
    expect(trim_history(history, 6).map((message) => message.content)).toEqual([
      's',
      '2',
      '',
      'x',
      'a2',
      '3',
      'a3',
    ]);
  });
});
