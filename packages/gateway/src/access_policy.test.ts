import { describe, expect, it } from 'vitest';
import {
  type AccessPolicyConfig,
  AccessPolicyError,
  decide_access,
  resolve_access_policy,
} from './access_policy.js';
import type { InboundMessage } from './inbound_message.js';

function message(overrides: Partial<InboundMessage> = {}): InboundMessage {
  return {
    platform: 'webhook',
    account: 'bot',
    chat_id: 'c1',
    conversation_key: 'webhook:c1',
    sender: { id: 'u1', name: 'Ann', is_bot: false },
    is_direct: true,
    mentions_bot: false,
    text: 'hi',
    attachments: [],
    platform_message_id: 'm1',
    reply_to: null,
    sent_at: 0,
    ...overrides,
  };
}

const nobody_paired = async () => false;

function policy(config: AccessPolicyConfig, can_pair = true) {
  return resolve_access_policy('webhook', config, { can_pair }).policy;
}

describe('resolve_access_policy', () => {
  it('pairs by default when there is no allowlist', () => {
    expect(policy({}).dm_policy).toBe('pairing');
    expect(policy({ allow_users: ['u1'] }).dm_policy).toBe('allowlist');
  });

  it('refuses to start with no allowlist and no pairing, unless allow_all (with a warning)', () => {
    expect(() => resolve_access_policy('webhook', {}, { can_pair: false })).toThrow(
      AccessPolicyError,
    );
    expect(() =>
      resolve_access_policy('webhook', { dm_policy: 'allowlist' }, { can_pair: true }),
    ).toThrow(/no allowlist and no pairing/);
    expect(() =>
      resolve_access_policy('webhook', { dm_policy: 'disabled' }, { can_pair: true }),
    ).toThrow(AccessPolicyError);
    const { warnings } = resolve_access_policy(
      'webhook',
      { allow_all: true, dm_policy: 'disabled' },
      { can_pair: false },
    );
    expect(warnings.join('\n')).toMatch(/allow_all/);
  });

  it('needs an explicit "*" for open', () => {
    expect(() => policy({ dm_policy: 'open', allow_users: ['u1'] })).toThrow(/"\*"/);
    const { warnings } = resolve_access_policy(
      'webhook',
      { dm_policy: 'open', allow_users: ['*'] },
      { can_pair: true },
    );
    expect(warnings.join('\n')).toMatch(/anyone/);
  });

  it('refuses pairing on a platform that cannot pair', () => {
    expect(() => policy({ dm_policy: 'pairing' }, false)).toThrow(/pairing/);
  });
});

describe('decide_access', () => {
  it('ignores an unknown sender under an allowlist', async () => {
    const allowlist = policy({ allow_users: ['u1'] });
    expect(await decide_access(allowlist, message(), nobody_paired)).toEqual({ action: 'allow' });
    const stranger = message({ sender: { id: 'u9', name: 'X', is_bot: false } });
    expect(await decide_access(allowlist, stranger, nobody_paired)).toEqual({
      action: 'ignore',
      reason: 'not_allowed',
    });
  });

  it('offers pairing to an unknown sender and lets a paired one in', async () => {
    const pairing = policy({});
    expect(await decide_access(pairing, message(), nobody_paired)).toEqual({ action: 'pair' });
    expect(await decide_access(pairing, message(), async (id) => id === 'u1')).toEqual({
      action: 'allow',
    });
  });

  it('ignores bots, even allowed ones, even under allow_all', async () => {
    const bot = message({ sender: { id: 'u1', name: 'B', is_bot: true } });
    for (const config of [{ allow_users: ['u1'] }, { allow_all: true }, {}]) {
      expect(await decide_access(policy(config), bot, nobody_paired)).toEqual({
        action: 'ignore',
        reason: 'bot',
      });
    }
  });

  it('with group_senders "allowed", answers in a group only senders allowed by id, role or pairing', async () => {
    const config = { allow_users: ['u1'], allow_groups: ['g1'], allow_roles: ['moderator'] };
    const strict = policy({ ...config, group_senders: 'allowed' });
    const in_group = (sender: InboundMessage['sender']) =>
      message({ is_direct: false, chat_id: 'g1', mentions_bot: true, sender });
    const ann = in_group({ id: 'u1', name: 'Ann', is_bot: false });
    const mod = in_group({ id: 'u7', name: 'Mo', is_bot: false, roles: ['vip', 'moderator'] });
    const vip = in_group({ id: 'u8', name: 'Vi', is_bot: false, roles: ['vip'] });
    const paired = in_group({ id: 'u9', name: 'Pa', is_bot: false });
    expect(await decide_access(strict, ann, nobody_paired)).toEqual({ action: 'allow' });
    expect(await decide_access(strict, mod, nobody_paired)).toEqual({ action: 'allow' });
    expect(await decide_access(strict, vip, nobody_paired)).toEqual({
      action: 'ignore',
      reason: 'not_allowed',
    });
    expect(await decide_access(strict, paired, async (id) => id === 'u9')).toEqual({
      action: 'allow',
    });
    // the default answers anyone in the group; a platform with public groups defaults to allowed
    expect(await decide_access(policy(config), vip, nobody_paired)).toEqual({ action: 'allow' });
    const open_groups = resolve_access_policy('twitch', config, {
      can_pair: false,
      public_groups: true,
    }).policy;
    expect(open_groups.group_senders).toBe('allowed');
    expect(await decide_access(open_groups, vip, nobody_paired)).toMatchObject({
      action: 'ignore',
    });
  });

  it('refuses to start when groups answer only allowed senders and none can be', () => {
    expect(() =>
      resolve_access_policy(
        'twitch',
        { allow_groups: ['g1'] },
        { can_pair: false, public_groups: true },
      ),
    ).toThrow(/no sender is allowed/);
    expect(
      resolve_access_policy(
        'twitch',
        { allow_groups: ['g1'], group_senders: 'anyone' },
        { can_pair: false, public_groups: true },
      ).policy.group_senders,
    ).toBe('anyone');
  });

  it('answers in an allowed group only when mentioned or replied to', async () => {
    const groups = policy({ allow_groups: ['g1'] });
    const in_group = (extra: Partial<InboundMessage>) =>
      message({ is_direct: false, chat_id: 'g1', ...extra });
    expect(await decide_access(groups, in_group({}), nobody_paired)).toEqual({
      action: 'ignore',
      reason: 'not_addressed',
    });
    expect(await decide_access(groups, in_group({ mentions_bot: true }), nobody_paired)).toEqual({
      action: 'allow',
    });
    const reply = in_group({ reply_to: { platform_message_id: 'b1', to_bot: true } });
    expect(await decide_access(groups, reply, nobody_paired)).toEqual({ action: 'allow' });
    const reply_to_someone = in_group({ reply_to: { platform_message_id: 'x', to_bot: false } });
    expect((await decide_access(groups, reply_to_someone, nobody_paired)).action).toBe('ignore');
    const other_group = in_group({ chat_id: 'g2', mentions_bot: true });
    expect(await decide_access(groups, other_group, nobody_paired)).toEqual({
      action: 'ignore',
      reason: 'group_not_allowed',
    });
    // told otherwise: every message of an allowed group
    const chatty = policy({ allow_groups: ['g1'], group_policy: 'all' });
    expect(await decide_access(chatty, in_group({}), nobody_paired)).toEqual({ action: 'allow' });
    const quiet = policy({ allow_groups: ['g1'], group_policy: 'disabled' });
    expect(
      (await decide_access(quiet, in_group({ mentions_bot: true }), nobody_paired)).action,
    ).toBe('ignore');
  });

  it('does not let an allowed user pull the bot into any group', async () => {
    const users = policy({ allow_users: ['u1'] });
    const group = message({ is_direct: false, chat_id: 'g9', mentions_bot: true });
    expect(await decide_access(users, group, nobody_paired)).toEqual({
      action: 'ignore',
      reason: 'group_not_allowed',
    });
  });

  it('ignores DMs when they are disabled', async () => {
    const no_dms = policy({ dm_policy: 'disabled', allow_groups: ['g1'] });
    expect(await decide_access(no_dms, message(), nobody_paired)).toEqual({
      action: 'ignore',
      reason: 'dm_disabled',
    });
  });
});
