import { make_temp_dir, type TempDir } from '@lich/testkit';
import { FakeSessionHost } from '@lich/testkit/session_host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeAdapter, make_message } from '../test/fake_adapter.js';
import { make_bus } from '../test/support.js';
import { AccessPolicyError } from './access_policy.js';
import { GatewayBus } from './gateway_bus.js';
import { DEFAULT_TEXTS } from './gateway_texts.js';
import { PairingStore } from './pairing_store.js';

let temp: TempDir;

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-gateway-policy-' });
});

afterEach(async () => {
  await temp.cleanup();
});

const MINUTE = 60_000;
const stranger = (id: string, text = 'hello') =>
  make_message({ chat: `dm-${id}`, text, sender: { id, name: `User ${id}`, is_bot: false } });

function code_in(text: string | null | undefined): string {
  const code = /lich gateway pair test ([A-Z2-9]{8})/.exec(text ?? '')?.[1];
  if (code === undefined) throw new Error(`no code in ${text}`);
  return code;
}

describe('GatewayBus: who gets an answer', () => {
  it('ignores an unknown sender under an allowlist, silently, without a run', async () => {
    const { bus, host, adapter } = await make_bus({ access: { allow_users: ['owner'] } });
    expect(await bus.receive(stranger('u9'))).toEqual({ status: 'ignored', reason: 'not_allowed' });
    expect(await bus.receive(make_message({ text: 'from the owner' }))).toMatchObject({
      status: 'accepted',
    });
    await adapter.until(() => adapter.settlements.length === 1);
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['from the owner']);
    expect(adapter.notices).toEqual([]);
  });

  it('pairs end to end: code, per-user rate, approval, then answers', async () => {
    let now = 10_000_000;
    const pairing = new PairingStore({ dir: `${temp.path}/pairing`, now: () => now });
    const { bus, host, adapter } = await make_bus({ access: {}, pairing });
    const first = await bus.receive(stranger('u1'));
    expect(first).toMatchObject({ status: 'pairing' });
    const code = code_in((first as { notice: string }).notice);
    expect(adapter.notices.map((notice) => notice.text)).toEqual([
      (first as { notice: string }).notice,
    ]);
    expect(adapter.notices[0]?.target.conversation_key).toBe('test:dm-u1');
    // asking again within 10 minutes gives no second code: it says the code waits, once (S9)
    now += 5 * MINUTE;
    expect(await bus.receive(stranger('u1', 'hello?'))).toEqual({
      status: 'pairing',
      notice: DEFAULT_TEXTS.pairing_waiting,
    });
    expect(await bus.receive(stranger('u1', 'hello??'))).toEqual({
      status: 'pairing',
      notice: null,
    });
    expect(adapter.notices).toHaveLength(2);
    // the owner approves (what `lich gateway pair test <code>` does)
    const owner_side = new PairingStore({ dir: `${temp.path}/pairing`, now: () => now });
    expect(await owner_side.approve('test', code)).toMatchObject({ ok: true, user_id: 'u1' });
    expect(await bus.receive(stranger('u1', 'now?'))).toMatchObject({ status: 'accepted' });
    await adapter.until(() => adapter.settlements.length === 1);
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['now?']);
  });

  it('pairs end to end: expiry, the pending cap and the lockout', async () => {
    let now = 10_000_000;
    const pairing = new PairingStore({ dir: `${temp.path}/pairing`, now: () => now });
    const { bus } = await make_bus({ access: {}, pairing });
    const codes: string[] = [];
    for (const id of ['a', 'b', 'c']) {
      codes.push(code_in(((await bus.receive(stranger(id))) as { notice: string }).notice));
    }
    // a fourth stranger is told to come back later: three codes wait already
    expect(await bus.receive(stranger('d'))).toEqual({
      status: 'pairing',
      notice: bus.texts.pairing_unavailable,
    });
    // an hour on, the codes have expired: approving one fails, and d can get a code
    now += 60 * MINUTE;
    expect(await pairing.approve('test', codes[0] ?? '')).toMatchObject({ reason: 'invalid' });
    const late = code_in(
      ((await bus.receive(stranger('d', 'again'))) as { notice: string }).notice,
    );
    // guessing locks pairing out: even the right code and new strangers are refused
    for (let attempt = 0; attempt < 4; attempt += 1) await pairing.approve('test', 'WRONGWR0');
    expect(await pairing.approve('test', late)).toMatchObject({ reason: 'locked_out' });
    expect(await bus.receive(stranger('e'))).toEqual({
      status: 'pairing',
      notice: bus.texts.pairing_unavailable,
    });
    expect(await bus.receive(stranger('d', 'let me in'))).toMatchObject({ status: 'pairing' });
  });

  it('answers in a group only when mentioned or replied to, and only an allowed group', async () => {
    const { bus, host, adapter } = await make_bus({ access: { allow_groups: ['g1'] } });
    const in_group = (extra: object) =>
      make_message({
        chat: 'g1',
        is_direct: false,
        sender: { id: 'u5', name: 'Bo', is_bot: false },
        ...extra,
      });
    expect(await bus.receive(in_group({ text: 'chatter' }))).toEqual({
      status: 'ignored',
      reason: 'not_addressed',
    });
    expect(await bus.receive(in_group({ text: '@bot hi', mentions_bot: true }))).toMatchObject({
      status: 'accepted',
    });
    const reply = in_group({
      text: 'thanks',
      reply_to: { platform_message_id: 'b1', to_bot: true },
    });
    expect(await bus.receive(reply)).toMatchObject({ status: 'accepted' });
    const elsewhere = make_message({ chat: 'g2', is_direct: false, mentions_bot: true });
    expect(await bus.receive(elsewhere)).toEqual({
      status: 'ignored',
      reason: 'group_not_allowed',
    });
    await adapter.until(() => adapter.settlements.length === 2);
    // in a group the model is told who speaks
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['[Bo] @bot hi', '[Bo] thanks']);
  });

  it('ignores bots, even allowed ones', async () => {
    const { bus, host } = await make_bus({ access: { allow_all: true } });
    const bot = make_message({ sender: { id: 'owner', name: 'B', is_bot: true } });
    expect(await bus.receive(bot)).toEqual({ status: 'ignored', reason: 'bot' });
    expect(host.prompts).toEqual([]);
  });

  it('refuses to start without a policy, and warns with allow_all', () => {
    const host = new FakeSessionHost();
    const adapter = new FakeAdapter();
    // no allowlist, and no pairing store: nobody could ever talk to it
    expect(() => new GatewayBus({ host, adapter, access: {} })).toThrow(AccessPolicyError);
    adapter.can_pair = false;
    expect(
      () =>
        new GatewayBus({
          host,
          adapter,
          access: {},
          pairing: new PairingStore({ dir: temp.path }),
        }),
    ).toThrow(/no allowlist and no pairing/);
    const open = new GatewayBus({ host, adapter, access: { allow_all: true } });
    expect(open.warnings.join('\n')).toMatch(/allow_all/);
  });

  it('says slow down once, not on every message', async () => {
    const { bus, adapter } = await make_bus({ rate_limit: { burst: 2, per_minute: 1 } });
    const results = [];
    for (let index = 0; index < 5; index += 1) results.push(await bus.receive(make_message()));
    expect(results.map((result) => result.status)).toEqual([
      'accepted',
      'accepted',
      'rate_limited',
      'rate_limited',
      'rate_limited',
    ]);
    expect(results[2]).toEqual({ status: 'rate_limited', notice: bus.texts.slow_down });
    expect(results[3]).toEqual({ status: 'rate_limited', notice: null });
    expect(adapter.notices.map((notice) => notice.text)).toEqual([bus.texts.slow_down]);
    // another sender is not held back
    expect(await bus.receive(stranger('other'))).toMatchObject({ status: 'accepted' });
  });
});

describe('GatewayBus: tools over chat', () => {
  it('with no approver, a tool that asks is denied', async () => {
    const host = new FakeSessionHost({
      behaviour: async (turn) => `the answer was ${await turn.ask_permission('terminal: ls')}`,
    });
    const { bus, adapter } = await make_bus({ host });
    await bus.receive(make_message({ chat: 'x' }));
    await adapter.until(() => adapter.settlements.length === 1);
    expect(adapter.texts('test:x')).toEqual(['the answer was reject_once']);
    expect(adapter.notices).toEqual([]);
  });

  it("routes a permission request to the owner's chat and takes the reply as the answer", async () => {
    const host = new FakeSessionHost({
      behaviour: async (turn) => `git push: ${await turn.ask_permission('terminal: git push')}`,
    });
    const owner = {
      platform: 'test',
      account: 'bot',
      chat_id: 'boss',
      conversation_key: 'test:boss',
    };
    const { bus, adapter } = await make_bus({ host, approvals_to: owner });
    await bus.receive(make_message({ chat: 'worker', text: 'push it' }));
    await adapter.until(() => adapter.notices.length === 1);
    expect(adapter.notices[0]?.target).toEqual(owner);
    expect(adapter.notices[0]?.text).toContain('test:worker: terminal: git push');
    // the owner's "y" is an answer, not a prompt
    const answer = await bus.receive(make_message({ chat: 'boss', text: 'y' }));
    expect(answer).toMatchObject({ status: 'approval' });
    await adapter.until(() => adapter.settlements.length === 1);
    expect(adapter.texts('test:worker')).toEqual(['git push: allow_once']);
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['push it']);
    // with nothing waiting, the owner's messages are prompts again
    expect(await bus.receive(make_message({ chat: 'boss', text: 'yes, and hi' }))).toMatchObject({
      status: 'accepted',
    });
  });
});
