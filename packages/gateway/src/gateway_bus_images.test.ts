import type { ImagePart } from '@lich/core';
import { FakeSessionHost, gate } from '@lich/testkit/session_host';
import { describe, expect, it } from 'vitest';
import { FakeAdapter, make_message } from '../test/fake_adapter.js';
import { make_bus, sleep } from '../test/support.js';
import type { AttachmentIntake } from './attachment_intake.js';
import type { InboundMessage } from './inbound_message.js';

const PICTURE: ImagePart = { type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' };

/** A fake adapter whose `take_attachments` answers `intake` (or throws) and counts its calls. */
class PictureAdapter extends FakeAdapter {
  taken: InboundMessage[] = [];
  constructor(readonly answer: AttachmentIntake | Error) {
    super();
  }
  async take_attachments(message: InboundMessage): Promise<AttachmentIntake> {
    this.taken.push(message);
    if (this.answer instanceof Error) throw this.answer;
    return this.answer;
  }
}

const photo = { kind: 'image', file_id: 'f1' };
const voice = { kind: 'voice', file_id: 'v1' };

describe('GatewayBus: attachments', () => {
  it('never asks the adapter to download for a sender the policy ignores', async () => {
    const adapter = new PictureAdapter({ images: [PICTURE], refused: [] });
    const { bus, host } = await make_bus({ adapter, access: { allow_users: ['ann'] } });
    const result = await bus.receive(
      make_message({ sender: { id: 'mallory', name: 'M', is_bot: false }, attachments: [photo] }),
    );
    expect(result).toEqual({ status: 'ignored', reason: 'not_allowed' });
    expect(adapter.taken).toEqual([]);
    expect(host.prompts).toEqual([]);
  });

  it('sends the pictures taken to the host with the text, and tells the sender what was refused', async () => {
    const adapter = new PictureAdapter({
      images: [PICTURE],
      refused: [{ what: 'the voice message', why: 'I understand only text and pictures' }],
    });
    const { bus, host } = await make_bus({ adapter });
    const message = make_message({ text: 'look', attachments: [photo, voice] });
    expect((await bus.receive(message)).status).toBe('accepted');
    await adapter.until(() => adapter.settlements.length === 1);
    expect(host.prompt_images).toMatchObject([{ input: 'look', images: [PICTURE] }]);
    // the attachments were taken in: no `[image: f1]` line reaches the model
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['look']);
    expect(adapter.notices).toEqual([
      {
        target: expect.objectContaining({ chat_id: 'c1' }),
        text: 'Sorry, I could not take the voice message: I understand only text and pictures.',
        reply_to: message.platform_message_id,
      },
    ]);
  });

  it('refuses a message left with nothing to say, without logging or running it', async () => {
    const adapter = new PictureAdapter(new Error('network down'));
    const { bus, host, logs } = await make_bus({ adapter });
    const result = await bus.receive(make_message({ text: '', attachments: [photo] }));
    expect(result).toEqual({
      status: 'invalid',
      reason: 'the attachment: it could not be downloaded',
    });
    expect(adapter.notices.map((notice) => notice.text)).toEqual([
      'Sorry, I could not take the attachment: it could not be downloaded.',
    ]);
    expect(logs.some((line) => line.includes('network down'))).toBe(true);
    expect(host.prompts).toEqual([]);
  });

  it('leaves attachments as lines for an adapter without the hook', async () => {
    const { bus, host, adapter } = await make_bus();
    await bus.receive(make_message({ text: 'see', attachments: [{ kind: 'file', url: 'u' }] }));
    await adapter.until(() => adapter.settlements.length === 1);
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['see\n[file: u]']);
    expect(host.prompt_images).toEqual([]);
  });

  it('steer: a message with a picture is not steered into the run in flight; it runs next', async () => {
    const tool_round = gate();
    const host = new FakeSessionHost({
      behaviour: async (turn) => {
        await tool_round.promise;
        return `re: ${[turn.input, ...turn.take_steering()].join(' + ')}`;
      },
    });
    const adapter = new PictureAdapter({ images: [PICTURE], refused: [] });
    const { bus } = await make_bus({ host, adapter, mode: 'steer' });
    await bus.receive(make_message({ text: 'find the bug' }));
    await sleep(10);
    await bus.receive(make_message({ text: 'this screen', attachments: [photo] }));
    tool_round.open();
    await adapter.until(() => adapter.settlements.length === 2);
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['find the bug', 'this screen']);
    expect(host.prompt_images).toMatchObject([{ input: 'this screen', images: [PICTURE] }]);
    expect(adapter.texts('test:c1')).toEqual(['re: find the bug', 're: this screen']);
  });
});
