import type { ImagePart } from '@lich/core';
import type { Agent } from '../agent.js';
import type { LiveSession } from './live_session.js';

/**
 * `input` with its `@path` mentions attached when `attach` (a person typed it): a file's text after
 * the words, a picture as itself (#35). Each mention not attached is an `error` event of the
 * session (`code: 'attachment'`) saying why. Never rejects.
 */
export async function attach_mentions_of(
  agent: Agent,
  live: LiveSession,
  input: string,
  attach: boolean,
): Promise<{ text: string; mentioned: ImagePart[] }> {
  if (!attach) return { text: input, mentioned: [] };
  const mentions = await agent.attach_file_mentions(input);
  for (const { path, why } of mentions.skipped) {
    live.publish('error', { message: `@${path} was not attached: ${why}`, code: 'attachment' });
  }
  return { text: mentions.text, mentioned: [...mentions.images] };
}
