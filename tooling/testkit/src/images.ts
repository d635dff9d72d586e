/**
 * A picture for tests: a 1×1 PNG, and a conversation that carries it in a user message and in a
 * tool result, so each provider's test can check the exact wire shape of both.
 */
import type { Message } from '@lich/core';

/** A 1×1 PNG (one opaque pixel), base64. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** The bytes of `TINY_PNG_BASE64`. */
export function tiny_png(): Buffer {
  return Buffer.from(TINY_PNG_BASE64, 'base64');
}

/**
 * A user message with text and a picture, the model's call of `read_file`, and its result: a line
 * of text and the picture. The call's id is `call_1`.
 */
export function picture_conversation(): Message[] {
  const image = {
    type: 'image' as const,
    media_type: 'image/png',
    data: TINY_PNG_BASE64,
    name: 'shot.png',
    width: 1,
    height: 1,
  };
  return [
    {
      role: 'user',
      content: [{ type: 'text', text: 'what is wrong here' }, image],
    },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"logo.png"}' }],
    },
    {
      role: 'tool',
      tool_call_id: 'call_1',
      name: 'read_file',
      content: [
        { type: 'text', text: 'a picture' },
        { ...image, name: 'logo.png' },
      ],
    },
  ];
}
