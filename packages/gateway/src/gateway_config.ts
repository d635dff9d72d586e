import type { AccessPolicyConfig, DmPolicy, GroupPolicy, GroupSenders } from './access_policy.js';
import type { ConversationMode } from './gateway_bus.js';
import { read_json_file } from './private_file.js';

/** A gateway settings file or flag that cannot be used: says which key and why. */
export class GatewayConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayConfigError';
  }
}

/** The bus's settings of one platform (keys of its section in `gateway.json`). */
export interface BusSettings {
  mode?: ConversationMode;
  max_concurrency?: number;
  max_conversations?: number;
  /** Messages of history each run is seeded with (default 40). */
  max_history_messages?: number;
  collect_debounce_ms?: number;
  rate_limit?: { burst?: number; per_minute?: number } | false;
  drain_deadline_ms?: number;
  /** A chat id of this platform that gets permission requests as reply prompts. */
  approvals_chat?: string;
  /**
   * The owner's chat id on this platform, told once per budget window when a spending limit stops
   * a conversation (default: `approvals_chat`).
   */
  owner_chat?: string;
  /**
   * Where conversations and sessions live: `postgres://…` for several nodes on one database
   * (needs `@lich/store-postgres`); absent: the JSONL files of the state folder.
   */
  store?: string;
  /**
   * Days a PostgreSQL store keeps answered messages and sent reply chunks (7); past every
   * platform's redelivery window, or a message redelivered after its row went is answered again.
   * The JSONL store compacts instead and ignores it.
   */
  retention_days?: number;
  /**
   * Take checkpoints of the work dir before each prompt's first change, as the other surfaces
   * do (default false: the gateway's work dir is the bot's, and nobody rewinds it from a chat).
   */
  checkpoints?: boolean;
}

/** One platform's section of `<work_dir>/.lich/gateway.json`, split by who reads it. */
export interface PlatformSettings {
  access: AccessPolicyConfig;
  bus: BusSettings;
  /** The keys the platform adapter reads (everything else in the section). */
  platform: Record<string, unknown>;
}

const ACCESS_KEYS = [
  'allow_users',
  'allow_groups',
  'dm_policy',
  'group_policy',
  'group_senders',
  'allow_roles',
  'allow_all',
];
const BUS_KEYS = [
  'mode',
  'max_concurrency',
  'max_conversations',
  'max_history_messages',
  'collect_debounce_ms',
  'rate_limit',
  'drain_deadline_ms',
  'approvals_chat',
  'owner_chat',
  'store',
  'retention_days',
  'checkpoints',
];

function is_object(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function id_list(where: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    throw new GatewayConfigError(`${where} must be a list of ids (strings)`);
  }
  return value as string[];
}

function one_of<T extends string>(where: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new GatewayConfigError(`${where} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function count(where: string, value: unknown, minimum = 1): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum) {
    throw new GatewayConfigError(`${where} must be a whole number of at least ${minimum}`);
  }
  return value;
}

/**
 * Checks one platform's section and splits it into access, bus and platform keys.
 *
 * Contract: throws `GatewayConfigError` naming the key for a value of the wrong type; keys that
 * are neither access nor bus keys are left to the platform (which reports the ones it does not
 * know).
 */
export function parse_platform_settings(platform: string, section: unknown): PlatformSettings {
  if (section === undefined) return { access: {}, bus: {}, platform: {} };
  if (!is_object(section)) throw new GatewayConfigError(`${platform} must be an object`);
  const at = (key: string) => `${platform}.${key}`;
  const access: AccessPolicyConfig = {};
  const bus: BusSettings = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(section)) {
    if (!ACCESS_KEYS.includes(key) && !BUS_KEYS.includes(key)) rest[key] = value;
  }
  const s = section;
  if (s.allow_users !== undefined) access.allow_users = id_list(at('allow_users'), s.allow_users);
  if (s.allow_groups !== undefined) {
    access.allow_groups = id_list(at('allow_groups'), s.allow_groups);
  }
  if (s.dm_policy !== undefined) {
    access.dm_policy = one_of<DmPolicy>(at('dm_policy'), s.dm_policy, [
      'pairing',
      'allowlist',
      'open',
      'disabled',
    ]);
  }
  if (s.group_policy !== undefined) {
    access.group_policy = one_of<GroupPolicy>(at('group_policy'), s.group_policy, [
      'mention',
      'all',
      'disabled',
    ]);
  }
  if (s.group_senders !== undefined) {
    access.group_senders = one_of<GroupSenders>(at('group_senders'), s.group_senders, [
      'anyone',
      'allowed',
    ]);
  }
  if (s.allow_roles !== undefined) access.allow_roles = id_list(at('allow_roles'), s.allow_roles);
  if (s.allow_all !== undefined) {
    if (typeof s.allow_all !== 'boolean')
      throw new GatewayConfigError(`${at('allow_all')}: true or false`);
    access.allow_all = s.allow_all;
  }
  if (s.checkpoints !== undefined) {
    if (typeof s.checkpoints !== 'boolean') {
      throw new GatewayConfigError(`${at('checkpoints')}: true or false`);
    }
    bus.checkpoints = s.checkpoints;
  }
  if (s.mode !== undefined) {
    bus.mode = one_of<ConversationMode>(at('mode'), s.mode, ['queue', 'steer', 'collect']);
  }
  for (const key of [
    'max_concurrency',
    'max_conversations',
    'max_history_messages',
    'retention_days',
  ] as const) {
    if (s[key] !== undefined) bus[key] = count(at(key), s[key]);
  }
  for (const key of ['collect_debounce_ms', 'drain_deadline_ms'] as const) {
    if (s[key] !== undefined) bus[key] = count(at(key), s[key], 0);
  }
  if (s.rate_limit === false) bus.rate_limit = false;
  else if (s.rate_limit !== undefined) {
    if (!is_object(s.rate_limit)) {
      throw new GatewayConfigError(`${at('rate_limit')} must be { burst, per_minute } or false`);
    }
    bus.rate_limit = {
      ...(s.rate_limit.burst === undefined
        ? {}
        : { burst: count(at('rate_limit.burst'), s.rate_limit.burst) }),
      ...(s.rate_limit.per_minute === undefined
        ? {}
        : { per_minute: count(at('rate_limit.per_minute'), s.rate_limit.per_minute) }),
    };
  }
  if (s.approvals_chat !== undefined) {
    if (typeof s.approvals_chat !== 'string' || s.approvals_chat === '') {
      throw new GatewayConfigError(`${at('approvals_chat')} must be a chat id`);
    }
    bus.approvals_chat = s.approvals_chat;
  }
  if (s.owner_chat !== undefined) {
    if (typeof s.owner_chat !== 'string' || s.owner_chat === '') {
      throw new GatewayConfigError(`${at('owner_chat')} must be a chat id`);
    }
    bus.owner_chat = s.owner_chat;
  }
  if (s.store !== undefined) {
    if (typeof s.store !== 'string' || !/^postgres(?:ql)?:\/\//i.test(s.store)) {
      throw new GatewayConfigError(`${at('store')} must be a postgres:// URL`);
    }
    bus.store = s.store;
  }
  return { access, bus, platform: rest };
}

/**
 * Reads `platform`'s section of a gateway settings file (`{ "<platform>": { … } }`); a missing file
 * is no settings. Throws `GatewayConfigError` for a file that is not JSON or a bad value.
 */
export async function read_platform_settings(
  path: string,
  platform: string,
): Promise<PlatformSettings & { found: boolean }> {
  let value: unknown;
  try {
    value = await read_json_file(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new GatewayConfigError(`${path}: ${reason}`);
  }
  if (value === undefined) return { access: {}, bus: {}, platform: {}, found: false };
  if (!is_object(value)) throw new GatewayConfigError(`${path} must hold a JSON object`);
  try {
    return { ...parse_platform_settings(platform, value[platform]), found: true };
  } catch (error) {
    if (error instanceof GatewayConfigError) {
      throw new GatewayConfigError(`${path}: ${error.message}`);
    }
    throw error;
  }
}
