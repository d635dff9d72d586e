import { describe, expect, it } from 'vitest';
import {
  count_message_chars,
  estimate_definition_tokens,
  estimate_tokens,
  TokenCounter,
} from './tokens.js';
import type { Message } from './types.js';

const messages: Message[] = [
  { role: 'system', content: 'abcd' },
  { role: 'user', content: 'abcdefgh' },
  {
    role: 'assistant',
    content: 'ab',
    reasoning: 'cdef',
    tool_calls: [{ id: 'ignored', name: 'grep', arguments: '{"p":1}' }],
  },
  { role: 'tool', tool_call_id: 'ignored', name: 'grep', content: 'xyz' },
];

describe('estimate_tokens', () => {
  it('counts content, reasoning, tool call names and arguments at four chars a token', () => {
    expect(count_message_chars(messages[2] as Message)).toBe(2 + 4 + 4 + 7);
    // 4 + 8 + 17 + 3 + 4 = 36 chars
    expect(estimate_tokens(messages)).toBe(9);
    expect(estimate_tokens([{ role: 'user', content: 'a' }])).toBe(1);
    expect(estimate_tokens([])).toBe(0);
  });

  it('counts reasoning parts when there is no reasoning text', () => {
    const message: Message = {
      role: 'assistant',
      content: '',
      reasoning_parts: [
        { text: 'abc', signature: 'sig' },
        { text: '', redacted: 'opaque' },
      ],
    };
    expect(count_message_chars(message)).toBe(3);
  });

  it('estimates tool definitions from their JSON', () => {
    const definition = { name: 'x', description: 'y', parameters: { type: 'object' } };
    expect(estimate_definition_tokens([definition])).toBe(
      Math.ceil(JSON.stringify(definition).length / 4),
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(estimate_definition_tokens([{ name: 'c', description: '', parameters: cyclic }])).toBe(
      0,
    );
  });
});

describe('TokenCounter', () => {
  it('matches estimate_tokens as messages are added and after a reset', () => {
    const counter = new TokenCounter(messages.slice(0, 1));
    expect(counter.tokens).toBe(estimate_tokens(messages.slice(0, 1)));
    for (const [index, message] of messages.slice(1).entries()) {
      counter.add(message);
      expect(counter.tokens).toBe(estimate_tokens(messages.slice(0, index + 2)));
    }
    expect(counter.chars).toBe(36);
    counter.reset(messages.slice(1, 2));
    expect(counter.tokens).toBe(2);
    expect(new TokenCounter().tokens).toBe(0);
  });
});
