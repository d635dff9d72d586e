import { describe, expect, it } from 'vitest';
import type { InboundMessage } from './inbound_message.js';
import { without_nul } from './without_nul.js';

const message: InboundMessage = {
  platform: 'webhook',
  account: 'webhook',
  chat_id: 'c1',
  conversation_key: 'webhook:c1',
  sender: { id: 'u1', name: 'Robert\u0000Tables', is_bot: false },
  is_direct: true,
  mentions_bot: false,
  text: 'a\u0000b\u0000',
  attachments: [{ kind: 'document', name: 'x\u0000.pdf' }],
  platform_message_id: 'm1',
  reply_to: null,
  sent_at: 1,
};

describe('without_nul', () => {
  it('strips U+0000 from every string, and returns a clean message as it is', () => {
    const clean = without_nul(message);
    expect(clean.text).toBe('ab');
    expect(clean.sender.name).toBe('RobertTables');
    expect(clean.attachments[0]?.name).toBe('x.pdf');
    expect(clean.reply_to).toBeNull();
    expect(without_nul(clean)).toBe(clean);
  });
});
