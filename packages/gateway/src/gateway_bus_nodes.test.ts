/**
 * Two buses on one store, as two gateway nodes on one database: the race in which a message
 * logged on node B while node A lets go of the conversation's claim was left waiting for the next
 * message (B's claim failed, A had already looked), in both the local and the shared pump.
 */

import { FakeSessionHost, gate } from '@lich/testkit/session_host';
import { describe, expect, it } from 'vitest';
import { FakeAdapter, make_message } from '../test/fake_adapter.js';
import { make_bus } from '../test/support.js';
import { memory_store } from './memory_store.js';
import type { Claim, GatewayStore } from './storage.js';

/**
 * The store as node A sees it: its first release lets `before_release` run first (node B's
 * message arrives then, and B's claim fails because A still holds it).
 */
function releasing_late(inner: GatewayStore, before_release: () => Promise<void>): GatewayStore {
  let fired = false;
  return {
    ...inner,
    lock: {
      claim: (key) => inner.lock.claim(key),
      holds: (claim) => inner.lock.holds(claim),
      release: async (claim: Claim) => {
        if (!fired) {
          fired = true;
          await before_release();
        }
        await inner.lock.release(claim);
      },
    },
  };
}

describe.each([
  { shared: false, label: 'a local store' },
  { shared: true, label: 'a shared store' },
])('GatewayBus on two nodes, $label', ({ shared }) => {
  it('answers a message logged on one node while the other releases the claim', async () => {
    const inner: GatewayStore = { ...memory_store(), shared };
    const disk: FakeSessionHost['disk'] = new Map();
    const node_b = await make_bus({
      host: new FakeSessionHost({ disk, behaviour: (turn) => `re: ${turn.input}` }),
      adapter: new FakeAdapter(),
      store: inner,
      poll_ms: 60_000, // no poll to hide the race
    });
    let late: Awaited<ReturnType<typeof node_b.bus.receive>> | undefined;
    const node_a = await make_bus({
      host: new FakeSessionHost({ disk, behaviour: (turn) => `re: ${turn.input}` }),
      adapter: new FakeAdapter(),
      store: releasing_late(inner, async () => {
        late = await node_b.bus.receive(make_message({ chat: 'x', text: 'second' }));
      }),
      poll_ms: 60_000,
    });
    await node_a.bus.receive(make_message({ chat: 'x', text: 'first' }));
    const replies = () => [...node_a.adapter.texts('test:x'), ...node_b.adapter.texts('test:x')];
    const both = () => replies().length === 2;
    // whichever node answers the second message: wait on both adapters' sends
    await Promise.race([
      node_a.adapter.until(both, 5_000).catch(() => undefined),
      node_b.adapter.until(both, 5_000).catch(() => undefined),
    ]);
    expect(late).toMatchObject({ status: 'accepted' });
    expect(replies()).toEqual(['re: first', 're: second']);
    for (const node of [node_a, node_b]) {
      await node.bus.drain();
      await node.bus.close();
    }
  });
});

describe('GatewayBus on two nodes of a shared store, new conversations', () => {
  it('leaves a new conversation to the node with a free slot when its own slots are busy', async () => {
    const listeners = new Set<(key: string, kind: 'mine' | 'new') => void>();
    const inner = memory_store();
    // the store's hint as a database sends it: to every node, when a message of a conversation
    // nobody worked yet was logged
    const store: GatewayStore = {
      ...inner,
      shared: true,
      log: {
        pending: (key) => inner.log.pending(key),
        mark_done: (key, seq, claim) => inner.log.mark_done(key, seq, claim),
        pending_conversations: () => inner.log.pending_conversations(),
        session_of: (key) => inner.log.session_of(key),
        bind_session: (key, id, claim) => inner.log.bind_session(key, id, claim),
        append: async (message) => {
          const appended = await inner.log.append(message);
          if (appended.appended && message.chat_id === 'new') {
            for (const listener of listeners) listener(message.conversation_key, 'new');
          }
          return appended;
        },
      },
      on_wake: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const disk: FakeSessionHost['disk'] = new Map();
    const held = gate();
    const started = gate();
    const busy = await make_bus({
      host: new FakeSessionHost({
        disk,
        behaviour: async (turn) => {
          if (turn.input.includes('long')) {
            started.open();
            await held.promise;
          }
          return `re: ${turn.input}`;
        },
      }),
      adapter: new FakeAdapter(),
      store,
      max_concurrency: 1,
      poll_ms: 60_000,
    });
    const idle = await make_bus({
      host: new FakeSessionHost({ disk, behaviour: (turn) => `re: ${turn.input}` }),
      adapter: new FakeAdapter(),
      store,
      max_concurrency: 1,
      poll_ms: 60_000,
    });
    await busy.bus.receive(make_message({ chat: 'old', text: 'long' }));
    await started.promise;
    expect(busy.bus.runs_in_flight).toBe(1);
    // logged on the busy node, answered by the idle one while the busy one still runs
    await busy.bus.receive(make_message({ chat: 'new', text: 'hello' }));
    await idle.adapter.until(() => idle.adapter.texts('test:new').length === 1, 5_000);
    expect(idle.adapter.texts('test:new')).toEqual(['re: hello']);
    expect(busy.adapter.texts('test:new')).toEqual([]);
    held.open();
    await busy.adapter.until(() => busy.adapter.texts('test:old').length === 1, 5_000);
    for (const node of [busy, idle]) {
      await node.bus.drain();
      await node.bus.close();
    }
    expect(busy.adapter.texts('test:new')).toEqual([]);
  });
});

describe('GatewayBus on a shared store, a chunk whose sends failed', () => {
  it('is sent before the next reply when the node claims the conversation again', async () => {
    // a clock standing still: each claim's epoch is the last one plus one, as on a database
    const store: GatewayStore = { ...memory_store({ now: () => 0 }), shared: true };
    const adapter = new FakeAdapter();
    const node = await make_bus({
      host: new FakeSessionHost({ behaviour: (turn) => `re: ${turn.input}` }),
      adapter,
      store,
      send_attempts: 1,
      poll_ms: 60_000,
    });
    adapter.fail_sends = 1;
    await node.bus.receive(make_message({ chat: 'x', text: 'first' }));
    await adapter.until(() => adapter.settlements.length === 1, 5_000);
    expect(adapter.texts('test:x')).toEqual([]);
    expect((await store.outbox.unsent('test:x')).map((entry) => entry.text)).toEqual(['re: first']);
    await node.bus.receive(make_message({ chat: 'x', text: 'second' }));
    await adapter.until(() => adapter.texts('test:x').length === 2, 5_000);
    expect(adapter.texts('test:x')).toEqual(['re: first', 're: second']);
    await node.bus.drain();
    await node.bus.close();
  });
});
