import { FakeSessionHost } from '@lich/testkit/session_host';
import { describe, expect, it } from 'vitest';
import { LiveConversations } from './live_conversations.js';
import { memory_store } from './memory_store.js';
import type { Claim } from './storage.js';

function make(options: { max_conversations?: number } = {}) {
  const host = new FakeSessionHost();
  const store = memory_store();
  const logs: string[] = [];
  const live = new LiveConversations({
    host,
    store,
    approvals: null,
    ...options,
    log: (entry) => logs.push(entry.message),
  });
  const claim = async (key: string): Promise<Claim> => {
    const claimed = await store.lock.claim(key);
    if (claimed === null) throw new Error(`no claim of ${key}`);
    return claimed;
  };
  return { host, store, live, logs, claim };
}

describe('LiveConversations', () => {
  it('makes a conversation idle and without a session the first time, the same one after', () => {
    const { live } = make();
    const first = live.get('a');
    expect(first).toMatchObject({ key: 'a', watch: null, pump: null, in_flight: null });
    expect(live.get('a')).toBe(first);
    expect(live.find('b')).toBeUndefined();
    expect(live.size).toBe(1);
  });

  it('creates a session and binds it; after the conversation is forgotten, loads the bound one', async () => {
    const { live, store, claim } = make();
    const first = await claim('a');
    const session_id = await live.open_session(live.get('a'), first);
    await store.lock.release(first);
    expect(await store.log.session_of('a')).toBe(session_id);
    live.clear();
    expect(live.size).toBe(0);
    expect(await live.open_session(live.get('a'), await claim('a'))).toBe(session_id);
  });

  it('closes the least recently active idle session past the cap', async () => {
    const { live, host, claim } = make({ max_conversations: 1 });
    const old = live.get('old');
    const old_session = await live.open_session(old, await claim('old'));
    old.last_active = 1;
    const recent = live.get('recent');
    recent.last_active = 2;
    await live.open_session(recent, await claim('recent'));
    expect(live.find('old')).toBeUndefined();
    expect(live.find('recent')).toBe(recent);
    await expect.poll(() => host.closed).toContain(old_session);
  });

  it('keeps a busy session past the cap', async () => {
    const { live, claim } = make({ max_conversations: 1 });
    const busy = live.get('busy');
    await live.open_session(busy, await claim('busy'));
    busy.in_flight = { turn_id: null, steered: [] };
    await live.open_session(live.get('other'), await claim('other'));
    expect(live.find('busy')).toBe(busy);
  });
});
