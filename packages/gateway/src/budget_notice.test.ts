import { FakeSessionHost } from '@lich/testkit/session_host';
import { describe, expect, it } from 'vitest';
import { FakeAdapter, make_message } from '../test/fake_adapter.js';
import { make_bus } from '../test/support.js';
import { BudgetNotice, budget_window } from './budget_notice.js';
import { DEFAULT_TEXTS } from './gateway_texts.js';
import type { ReplyTarget } from './storage.js';

const OWNER: ReplyTarget = {
  platform: 'test',
  account: '',
  chat_id: 'owner-dm',
  conversation_key: 'test:owner-dm',
};

/** A host whose every run a spending limit of `scope` stops, as @lich/core's BudgetStop does. */
function stopping_host(scope: (input: string) => string): FakeSessionHost {
  return new FakeSessionHost({
    behaviour: (turn) => {
      throw Object.assign(new Error(`the ${scope(turn.input)} budget of $0.50 would be crossed`), {
        budget_stop: true,
        scope: scope(turn.input),
      });
    },
  });
}

const sender = (id: string) => ({ id, name: id, is_bot: false });

describe('budget_window', () => {
  it('is the UTC day for daily limits, the conversation for limits that never renew', () => {
    const noon = Date.parse('2026-12-05T12:00:00Z');
    const stop = { conversation_key: 'test:a', sender: 'test:u1', reason: 'r' };
    expect(budget_window({ ...stop, scope: 'sender' }, noon)).toBe('sender:test:u1:2026-12-05');
    expect(budget_window({ ...stop, scope: 'sender' }, noon + 12 * 3_600_000)).toBe(
      'sender:test:u1:2026-12-06',
    );
    expect(budget_window({ ...stop, scope: 'day' }, noon)).toBe('day:2026-12-05');
    expect(budget_window({ ...stop, scope: 'conversation' }, noon)).toBe('conversation:test:a');
    expect(budget_window({ ...stop, scope: 'session' }, noon)).toBe('session:test:a');
    expect(budget_window({ ...stop, scope: undefined }, noon)).toBe('budget:test:a:2026-12-05');
  });
});

describe('GatewayBus: the owner is told when a budget stops a conversation', () => {
  it('tells the sender every time, and the owner once per budget window, in a direct message', async () => {
    const host = stopping_host((input) => (input.startsWith('conv') ? 'conversation' : 'sender'));
    const { bus, adapter, logs } = await make_bus({ host, owner_to: OWNER });
    // one sender over their daily limit, three times, in two chats
    let settled = 0;
    const say = async (chat: string, id: string, text: string) => {
      await bus.receive(make_message({ chat, sender: sender(id), text }));
      settled += 1;
      await adapter.until(() => adapter.settlements.length === settled);
    };
    for (const chat of ['a', 'a', 'b']) await say(chat, 'u1', 'one more');
    expect(adapter.texts('test:a')).toEqual([bus.texts.budget_reply, bus.texts.budget_reply]);
    expect(adapter.texts('test:b')).toEqual([bus.texts.budget_reply]);
    const told = () => adapter.notices.filter((notice) => notice.target.chat_id === 'owner-dm');
    expect(told()).toHaveLength(1);
    expect(told()[0]?.text).toBe(
      bus.texts.budget_owner_notice('test:a', 'the sender budget of $0.50 would be crossed'),
    );
    expect(told()[0]?.reply_to).toBeNull();
    // another sender's daily limit is another window; so is a conversation's limit
    await say('c', 'u2', 'hello');
    await say('d', 'u3', 'conv limit');
    await say('d', 'u3', 'conv again');
    expect(told().map((notice) => notice.text)).toEqual([
      bus.texts.budget_owner_notice('test:a', 'the sender budget of $0.50 would be crossed'),
      bus.texts.budget_owner_notice('test:c', 'the sender budget of $0.50 would be crossed'),
      bus.texts.budget_owner_notice('test:d', 'the conversation budget of $0.50 would be crossed'),
    ]);
    // the sender's chat never sees the owner's notice
    expect(adapter.texts('test:d')).toEqual([bus.texts.budget_reply, bus.texts.budget_reply]);
    expect(logs.filter((line) => line.includes('owner'))).toEqual([]);
  });

  it('tells the approvals chat when no owner chat is set; says in the log when there is neither', async () => {
    const approvals = { ...OWNER, chat_id: 'approvals', conversation_key: 'test:approvals' };
    const first = await make_bus({ host: stopping_host(() => 'sender'), approvals_to: approvals });
    await first.bus.receive(make_message({ chat: 'a', sender: sender('u1') }));
    await first.adapter.until(() => first.adapter.settlements.length === 1);
    expect(first.adapter.notices.map((notice) => notice.target.chat_id)).toEqual(['approvals']);

    const second = await make_bus({ host: stopping_host(() => 'sender') });
    for (let index = 0; index < 2; index++) {
      await second.bus.receive(make_message({ chat: 'a', sender: sender('u1') }));
    }
    await second.adapter.until(() => second.adapter.settlements.length === 2);
    expect(second.adapter.notices).toEqual([]);
    const lines = second.logs.filter((line) => line.includes('set owner_chat'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warn: a budget stopped test:a \(the sender budget .*\)/);
  });

  it('logs a clear line when the owner cannot be messaged', async () => {
    const adapter = new FakeAdapter();
    adapter.notify = async () => {
      throw new Error('chat not found');
    };
    const { bus, logs } = await make_bus({
      host: stopping_host(() => 'sender'),
      adapter,
      owner_to: OWNER,
    });
    await bus.receive(make_message({ chat: 'a', sender: sender('u1') }));
    await adapter.until(() => adapter.settlements.length === 1);
    await adapter.until(() => logs.some((line) => line.includes('could not tell the owner')));
    expect(logs.find((line) => line.includes('could not tell the owner'))).toBe(
      'warn: could not tell the owner (test:owner-dm) that a budget stopped test:a: chat not found',
    );
  });

  it('is told once between several nodes that claim the window through their store', async () => {
    const claimed = new Set<string>();
    const claim = async (key: string) => {
      if (claimed.has(key)) return false;
      claimed.add(key);
      return true;
    };
    const told: string[] = [];
    const node = () => {
      const adapter = new FakeAdapter();
      adapter.notify = async (_target, text) => {
        told.push(text);
      };
      return new BudgetNotice({
        adapter,
        owner: OWNER,
        texts: DEFAULT_TEXTS,
        log: () => undefined,
        claim,
      });
    };
    const stop = { conversation_key: 'test:a', sender: 'test:u1', scope: 'day', reason: 'daily' };
    const [one, two, three] = [node(), node(), node()];
    one.stopped(stop);
    two.stopped(stop);
    three.stopped({ ...stop, conversation_key: 'test:b' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(told).toHaveLength(1);
    expect([...claimed]).toEqual([`budget:${budget_window(stop, Date.now())}`]);
  });

  it('tells the owner anyway when the claim fails: twice beats never', async () => {
    const adapter = new FakeAdapter();
    const told: string[] = [];
    adapter.notify = async (_target, text) => {
      told.push(text);
    };
    const notice = new BudgetNotice({
      adapter,
      owner: OWNER,
      texts: DEFAULT_TEXTS,
      log: () => undefined,
      claim: async () => {
        throw new Error('the database is away');
      },
    });
    notice.stopped({
      conversation_key: 'test:a',
      sender: undefined,
      scope: 'day',
      reason: 'daily',
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(told).toHaveLength(1);
  });
});
