import { FakeSessionHost } from '@lich/testkit/session_host';
import { describe, expect, it, vi } from 'vitest';
import { FakeAdapter, make_message } from '../test/fake_adapter.js';
import { make_bus, sleep } from '../test/support.js';
import { memory_store } from './memory_store.js';

describe('GatewayBus: order and concurrency', () => {
  it('answers 200 conversations × 10 concurrent messages each in order, under the cap', async () => {
    const host = new FakeSessionHost({
      behaviour: async (turn) => {
        await sleep(Math.floor(Math.random() * 3));
        return `re: ${turn.input}`;
      },
    });
    const { bus, adapter } = await make_bus({ host, max_concurrency: 16 });
    const sends: Promise<unknown>[] = [];
    // every conversation's ten messages go in together, interleaved with all the others
    for (let index = 0; index < 10; index += 1) {
      for (let chat = 0; chat < 200; chat += 1) {
        sends.push(bus.receive(make_message({ chat: `c${chat}`, text: `c${chat} #${index}` })));
      }
    }
    const results = await Promise.all(sends);
    expect(results.every((result) => (result as { status: string }).status === 'accepted')).toBe(
      true,
    );
    await adapter.until(() => adapter.settlements.length === 2000, 60_000);
    for (let chat = 0; chat < 200; chat += 1) {
      const expected = Array.from({ length: 10 }, (_, index) => `re: c${chat} #${index}`);
      expect(adapter.texts(`test:c${chat}`)).toEqual(expected);
    }
    // each conversation is one session, and its history holds the prompts in order
    const sessions = new Set(host.prompts.map((prompt) => prompt.session_id));
    expect(sessions.size).toBe(200);
    const first = host.prompts.filter((prompt) => prompt.input.startsWith('c7 #'));
    expect(first.map((prompt) => prompt.input)).toEqual(
      Array.from({ length: 10 }, (_, index) => `c7 #${index}`),
    );
    expect(host.max_parallel).toBeLessThanOrEqual(16);
    expect(host.max_parallel).toBeGreaterThan(1);
    await vi.waitFor(() => expect(bus.runs_in_flight).toBe(0));
  }, 90_000);

  it('holds at most max_conversations sessions, closing the least recently active', async () => {
    const { bus, host, adapter } = await make_bus({ max_conversations: 3 });
    for (const chat of ['a', 'b', 'c', 'd', 'e']) {
      await bus.receive(make_message({ chat, text: `hi ${chat}` }));
      await adapter.until(() => adapter.texts(`test:${chat}`).length === 1);
    }
    await adapter.until(() => host.live.size === 3);
    expect(bus.live_conversations).toBe(3);
    const titles = [...host.live.values()].map((live) => live.disk.title).sort();
    expect(titles).toEqual(['test:c', 'test:d', 'test:e']);
    expect(host.closed).toHaveLength(2);
    // an evicted conversation continues from its session when it speaks again
    const before = host.prompts.find((prompt) => prompt.input === 'hi a')?.session_id;
    await bus.receive(make_message({ chat: 'a', text: 'again' }));
    await adapter.until(() => adapter.texts('test:a').length === 2);
    const after = host.prompts.find((prompt) => prompt.input === 'again')?.session_id;
    expect(after).toBe(before);
    expect((await host.history(after ?? '')).map((message) => message.content)).toEqual([
      'hi a',
      'echo: hi a',
      'again',
      'echo: again',
    ]);
    await adapter.until(() => host.live.size === 3);
  });

  it('never evicts a conversation that is running', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const host = new FakeSessionHost({
      behaviour: async (turn) => {
        if (turn.input === 'slow') await held;
        return 'ok';
      },
    });
    const { bus, adapter } = await make_bus({ host, max_conversations: 1 });
    await bus.receive(make_message({ chat: 'slow', text: 'slow' }));
    await bus.receive(make_message({ chat: 'fast', text: 'fast' }));
    await adapter.until(() => adapter.texts('test:fast').length === 1);
    expect(host.live.size).toBe(2); // over the cap while the slow one runs
    release();
    await adapter.until(() => adapter.texts('test:slow').length === 1);
    // the idle one is closed when its pump ends, which may be after the adapter's last event
    await vi.waitFor(() => expect(host.live.size).toBe(1));
  });

  it('drops a redelivered message, and lets it in again after the TTL', async () => {
    const { bus, host, adapter } = await make_bus({ dedupe_ttl_ms: 50 });
    const message = make_message({ text: 'once' });
    expect(await bus.receive(message)).toMatchObject({ status: 'accepted' });
    expect(await bus.receive({ ...message })).toEqual({ status: 'duplicate' });
    await adapter.until(() => adapter.settlements.length === 1);
    expect(await bus.receive({ ...message })).toEqual({ status: 'duplicate' });
    expect(host.prompts).toHaveLength(1);
    // the same id on another account or platform is another message
    expect(await bus.receive({ ...message, account: 'other' })).toMatchObject({
      status: 'accepted',
    });
    await sleep(60);
    // past the bus's TTL the store still knows it (its own window is 15 minutes)
    expect(await bus.receive({ ...message })).toEqual({ status: 'duplicate' });
  });

  it('drops a redelivery that reaches a second bus on the same store', async () => {
    const store = memory_store();
    const first = await make_bus({ store });
    const message = make_message();
    expect(await first.bus.receive(message)).toMatchObject({ status: 'accepted' });
    const second = await make_bus({ store, host: first.host, adapter: new FakeAdapter() });
    expect(await second.bus.receive({ ...message })).toEqual({ status: 'duplicate' });
  });

  it('chunks a long reply at the adapter limit, in order', async () => {
    const long = Array.from({ length: 40 }, (_, index) => `Sentence number ${index}.`).join(' ');
    const host = new FakeSessionHost({ behaviour: () => long });
    const adapter = new FakeAdapter();
    adapter.max_message_chars = 100;
    const { bus } = await make_bus({ host, adapter });
    await bus.receive(make_message({ chat: 'long' }));
    await adapter.until(() => adapter.settlements.length === 1);
    const chunks = adapter.sent;
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.every((chunk) => chunk.text.length <= 100)).toBe(true);
    expect(chunks.map((chunk) => chunk.index)).toEqual(chunks.map((_, index) => index));
    expect(chunks.map((chunk) => chunk.text).join(' ')).toBe(long);
    expect(adapter.settlements[0]?.reply?.chunks).toHaveLength(chunks.length);
  });

  it('shows typing while a run is in flight, and stops after', async () => {
    const host = new FakeSessionHost({
      behaviour: async () => {
        await sleep(80);
        return 'done';
      },
    });
    const adapter = new FakeAdapter();
    adapter.typing_interval_ms = 20;
    const { bus } = await make_bus({ host, adapter });
    await bus.receive(make_message({ chat: 't' }));
    await adapter.until(() => adapter.settlements.length === 1);
    const count = adapter.typing_calls.length;
    expect(count).toBeGreaterThanOrEqual(3);
    await sleep(60);
    expect(adapter.typing_calls.length).toBe(count);
  });

  it('tells the sender in one polite line when a budget stops the run, and logs which', async () => {
    const host = new FakeSessionHost({
      behaviour: () => {
        // what @lich/core's BudgetStop carries
        throw Object.assign(new Error('the sender budget of $0.50 would be crossed'), {
          budget_stop: true,
        });
      },
    });
    const { bus, adapter, logs } = await make_bus({ host });
    await bus.receive(make_message({ chat: 'b', text: 'one more question' }));
    await adapter.until(() => adapter.settlements.length === 1);
    expect(adapter.settlements[0]).toMatchObject({ stop_reason: 'budget' });
    expect(adapter.texts('test:b')).toEqual([bus.texts.budget_reply]);
    expect(bus.texts.budget_reply.split('\n')).toHaveLength(1);
    // the owner reads which limit it was
    expect(JSON.stringify(logs)).toContain('the sender budget of $0.50 would be crossed');
    // the run was asked with the sender's and the conversation's budgets
    expect(host.budget_scopes[0]).toEqual({
      conversation: 'test:b',
      sender: expect.stringMatching(/^test:/),
    });
  });

  it('sends the error notice when the model fails, and logs why', async () => {
    const host = new FakeSessionHost({
      behaviour: () => {
        throw new Error('HTTP 500 from the provider');
      },
    });
    const { bus, adapter, logs } = await make_bus({ host });
    await bus.receive(make_message({ chat: 'e' }));
    await adapter.until(() => adapter.settlements.length === 1);
    expect(adapter.settlements[0]).toMatchObject({ outcome: 'failed', stop_reason: 'error' });
    expect(adapter.texts('test:e')).toEqual([bus.texts.error_reply]);
    expect(logs.join('\n')).toContain('HTTP 500 from the provider');
  });
});
