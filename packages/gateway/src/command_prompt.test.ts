import { FakeSessionHost } from '@lich/testkit/session_host';
import { describe, expect, it } from 'vitest';
import { FakeAdapter, make_message } from '../test/fake_adapter.js';
import { make_bus } from '../test/support.js';

/** A host with one custom command, as the agent's registry would hold it. */
class HostWithCommands extends FakeSessionHost {
  override commands() {
    return [{ name: 'frontend:component', description: 'Scaffold a component' }];
  }

  override async run_command(_session_id: string, name: string, args = '') {
    return name === 'frontend:component'
      ? { ok: true, output: '', prompt: `Create a component named ${args}.` }
      : { ok: false, output: 'unknown' };
  }
}

describe('custom commands in a chat', () => {
  it("sends a custom command's prompt, and other slash text as written", async () => {
    const host = new HostWithCommands();
    const { bus, adapter } = await make_bus({ host, adapter: new FakeAdapter() });
    await bus.receive(make_message({ chat: 'a', text: '/frontend:component UserCard' }));
    await adapter.until(() => adapter.texts('test:a').length === 1);
    await bus.receive(make_message({ chat: 'a', text: '/unknown thing' }));
    await adapter.until(() => adapter.texts('test:a').length === 2);
    expect(host.prompts.map((prompt) => prompt.input)).toEqual([
      'Create a component named UserCard.',
      '/unknown thing',
    ]);
  });

  it("sends the message's pictures with a custom command's prompt", async () => {
    const host = new HostWithCommands();
    const picture = { type: 'image' as const, media_type: 'image/png', data: 'iVBORw0KGgo=' };
    const { bus, adapter } = await make_bus({ host, adapter: new FakeAdapter() });
    await bus.receive({
      ...make_message({ chat: 'a', text: '/frontend:component UserCard' }),
      images: [picture],
    });
    await adapter.until(() => adapter.texts('test:a').length === 1);
    expect(host.prompt_images).toMatchObject([
      { input: 'Create a component named UserCard.', images: [picture] },
    ]);
  });
});
