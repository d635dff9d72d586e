import type { InboundMessage } from './inbound_message.js';

/** Who may write to the bot one to one. */
export type DmPolicy = 'pairing' | 'allowlist' | 'open' | 'disabled';

/** When the bot answers in a group it is allowed in. */
export type GroupPolicy = 'mention' | 'all' | 'disabled';

/** Who is answered in an allowed group: `anyone` in it, or only `allowed` senders. */
export type GroupSenders = 'anyone' | 'allowed';

/** One platform's access settings, as an operator writes them. */
export interface AccessPolicyConfig {
  /** Sender ids allowed in direct messages; `"*"` is everyone (and is what `open` needs). */
  allow_users?: readonly string[];
  /** Group, channel or thread ids the bot answers in; `"*"` is every group. */
  allow_groups?: readonly string[];
  /** Default: `pairing` when `allow_users` is empty and the platform can pair, else `allowlist`. */
  dm_policy?: DmPolicy;
  /** Default `mention`: in an allowed group, answer only when mentioned or replied to. */
  group_policy?: GroupPolicy;
  /** Let everyone in (bots are still ignored). Starting this way prints a warning. */
  allow_all?: boolean;
  /**
   * In an allowed group, answer `anyone` who addresses the bot, or only `allowed` senders (in
   * `allow_users`, paired, or holding a role in `allow_roles`). Default `anyone`, or `allowed` on
   * a platform whose groups anyone can join (Twitch).
   */
  group_senders?: GroupSenders;
  /** Sender roles (see `Sender.roles`, e.g. Twitch's `moderator`) that count as allowed senders. */
  allow_roles?: readonly string[];
}

/** The settings after defaults, as the policy applies them. */
export interface ResolvedAccessPolicy {
  allow_users: ReadonlySet<string>;
  allow_groups: ReadonlySet<string>;
  dm_policy: DmPolicy;
  group_policy: GroupPolicy;
  group_senders: GroupSenders;
  allow_roles: ReadonlySet<string>;
  allow_all: boolean;
}

/** Why a message is not answered. */
export type IgnoreReason =
  | 'bot'
  | 'dm_disabled'
  | 'not_allowed'
  | 'group_not_allowed'
  | 'groups_disabled'
  | 'not_addressed';

/** What the policy says about one message. */
export type AccessDecision =
  | { action: 'allow' }
  | { action: 'ignore'; reason: IgnoreReason }
  /** An unknown sender in a DM under `pairing`: the bus offers a pairing code. */
  | { action: 'pair' };

/** The policy refuses to start: nobody could talk to the bot, or the settings contradict. */
export class AccessPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccessPolicyError';
  }
}

/**
 * Applies defaults and checks that the bot may start.
 *
 * Contract: throws `AccessPolicyError` when `dm_policy` is `open` without `"*"` in `allow_users`,
 * when it is `pairing` on a platform that cannot pair, and when there is no allowlist, no pairing
 * and no `allow_all` (the bot would answer nobody, or an operator forgot the policy), and when
 * groups are allowed but answer only allowed senders and no sender can be allowed. Returns the
 * policy and its warnings (`allow_all`, `open`). `public_groups` makes `group_senders` default
 * to `allowed`.
 */
export function resolve_access_policy(
  platform: string,
  config: AccessPolicyConfig,
  options: { can_pair: boolean; public_groups?: boolean },
): { policy: ResolvedAccessPolicy; warnings: string[] } {
  const allow_users = new Set(config.allow_users ?? []);
  const allow_groups = new Set(config.allow_groups ?? []);
  const allow_all = config.allow_all === true;
  const dm_policy: DmPolicy =
    config.dm_policy ?? (allow_users.size === 0 && options.can_pair ? 'pairing' : 'allowlist');
  const group_policy = config.group_policy ?? 'mention';
  const group_senders: GroupSenders =
    config.group_senders ?? (options.public_groups === true ? 'allowed' : 'anyone');
  const allow_roles = new Set(config.allow_roles ?? []);
  const warnings: string[] = [];
  if (dm_policy === 'open' && !allow_users.has('*')) {
    throw new AccessPolicyError(
      `${platform}: dm_policy "open" lets anyone in, so it needs an explicit allow_users: ["*"]`,
    );
  }
  if (dm_policy === 'pairing' && !options.can_pair) {
    throw new AccessPolicyError(
      `${platform}: this platform cannot show a pairing code; use allow_users (dm_policy "allowlist")`,
    );
  }
  const has_list = allow_users.size > 0 || allow_groups.size > 0;
  if (!has_list && dm_policy !== 'pairing' && !allow_all) {
    throw new AccessPolicyError(
      `${platform}: refusing to start: no allowlist and no pairing, so nobody is allowed. Set ` +
        'allow_users (or allow_groups), use dm_policy "pairing", or set allow_all: true',
    );
  }
  if (
    group_senders === 'allowed' &&
    allow_groups.size > 0 &&
    group_policy !== 'disabled' &&
    !allow_all &&
    allow_users.size === 0 &&
    allow_roles.size === 0 &&
    dm_policy !== 'pairing'
  ) {
    throw new AccessPolicyError(
      `${platform}: groups are allowed, but in them only allowed senders are answered and no ` +
        'sender is allowed. Set allow_users (user ids) or allow_roles (e.g. moderator), or ' +
        'group_senders: "anyone" to answer everyone in those groups',
    );
  }
  if (allow_all) {
    warnings.push(
      `${platform}: allow_all is set: anyone who can reach this bot can use it and its tools`,
    );
  } else if (allow_users.has('*')) {
    warnings.push(`${platform}: allow_users has "*": anyone can write to this bot directly`);
  }
  return {
    policy: {
      allow_users,
      allow_groups,
      dm_policy,
      group_policy,
      group_senders,
      allow_roles,
      allow_all,
    },
    warnings,
  };
}

/**
 * Whether a group message's chat is allowed: by `allow_all`, `*`, or its own id; a topic (a
 * `group_id` set) by its group's id too — unless topics of that group are listed, which narrows
 * the group to them.
 */
function group_allowed(policy: ResolvedAccessPolicy, message: InboundMessage): boolean {
  const { allow_groups } = policy;
  if (policy.allow_all || allow_groups.has('*') || allow_groups.has(message.chat_id)) return true;
  const group = message.group_id;
  if (group === undefined || group === message.chat_id || !allow_groups.has(group)) return false;
  const prefix = `${group}:`;
  for (const entry of allow_groups) if (entry.startsWith(prefix)) return false;
  return true;
}

/**
 * Decides whether a message is answered.
 *
 * Contract (in this order):
 * - a message from a bot is ignored, always;
 * - in a group: with `group_policy: 'disabled'` it is ignored; the group must be allowed
 *   (`allow_groups` or `allow_all`; a forum topic by its group, see `group_allowed`); with `mention` (the default) the bot must be mentioned or
 *   replied to; with `group_senders: 'allowed'` the sender must be in `allow_users`, hold a role
 *   in `allow_roles`, or be paired (else `not_allowed`);
 * - in a DM: `allow_all`, or a sender in `allow_users` (`"*"` matches anyone), is allowed;
 *   `disabled` ignores the rest; `pairing` allows a sender `is_paired` says yes to and answers
 *   `pair` for anyone else; `allowlist` and `open` ignore the rest.
 */
export async function decide_access(
  policy: ResolvedAccessPolicy,
  message: InboundMessage,
  is_paired: (user_id: string) => Promise<boolean>,
): Promise<AccessDecision> {
  if (message.sender.is_bot) return { action: 'ignore', reason: 'bot' };
  if (!message.is_direct) {
    if (policy.group_policy === 'disabled') return { action: 'ignore', reason: 'groups_disabled' };
    if (!group_allowed(policy, message)) return { action: 'ignore', reason: 'group_not_allowed' };
    const addressed = message.mentions_bot || message.reply_to?.to_bot === true;
    if (policy.group_policy === 'mention' && !addressed) {
      return { action: 'ignore', reason: 'not_addressed' };
    }
    if (policy.group_senders === 'allowed' && !policy.allow_all) {
      const { id, roles = [] } = message.sender;
      const allowed =
        policy.allow_users.has('*') ||
        policy.allow_users.has(id) ||
        roles.some((role) => policy.allow_roles.has(role)) ||
        (await is_paired(id));
      if (!allowed) return { action: 'ignore', reason: 'not_allowed' };
    }
    return { action: 'allow' };
  }
  if (policy.allow_all) return { action: 'allow' };
  if (policy.dm_policy === 'disabled') return { action: 'ignore', reason: 'dm_disabled' };
  if (policy.allow_users.has('*') || policy.allow_users.has(message.sender.id)) {
    return { action: 'allow' };
  }
  if (policy.dm_policy === 'pairing') {
    return (await is_paired(message.sender.id)) ? { action: 'allow' } : { action: 'pair' };
  }
  return { action: 'ignore', reason: 'not_allowed' };
}
