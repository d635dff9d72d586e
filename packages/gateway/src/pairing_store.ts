import { join } from 'node:path';
import {
  type HashedCode,
  hash_pairing_code,
  new_pairing_code,
  normalize_pairing_code,
  pairing_code_matches,
} from './pairing_code.js';
import { read_json_file, with_file_lock, write_private_json } from './private_file.js';

/** The limits of pairing (the defaults are the issue's). */
export interface PairingLimits {
  /** A code lasts this long (default 1 hour). */
  code_ttl_ms: number;
  /** At most this many codes wait per platform (default 3). */
  max_pending: number;
  /** One code per user per this long (default 10 minutes). */
  user_interval_ms: number;
  /** Consecutive failed approvals that lock pairing out (default 5)… */
  max_failures: number;
  /** …for this long (default 1 hour). */
  lockout_ms: number;
}

/** The pairing limits. */
export const DEFAULT_PAIRING_LIMITS: PairingLimits = {
  code_ttl_ms: 60 * 60_000,
  max_pending: 3,
  user_interval_ms: 10 * 60_000,
  max_failures: 5,
  lockout_ms: 60 * 60_000,
};

interface PendingEntry extends HashedCode {
  user_id: string;
  user_name: string;
  created_at: number;
}

interface ApprovedEntry {
  user_name: string;
  approved_at: number;
}

/** One platform's pairing file. */
interface PairingFile {
  pending: PendingEntry[];
  approved: Record<string, ApprovedEntry>;
  /** user id → when the user was last given a code. */
  requested: Record<string, number>;
  failures: number;
  locked_until: number;
}

function empty_file(): PairingFile {
  return { pending: [], approved: {}, requested: {}, failures: 0, locked_until: 0 };
}

/** What asking for a code gave. */
export type PairingRequestResult =
  | { ok: true; code: string; expires_at: number }
  | { ok: false; reason: 'rate_limited' | 'too_many_pending' | 'locked_out' };

/** What approving a code gave. */
export type PairingApproveResult =
  | { ok: true; user_id: string; user_name: string }
  | { ok: false; reason: 'invalid' | 'locked_out'; failures: number };

/** A waiting request, as `list` shows it (the code is never stored, so never shown). */
export interface PendingPairing {
  user_id: string;
  user_name: string;
  created_at: number;
  expires_at: number;
}

/** How a `PairingStore` is made. */
export interface PairingStoreOptions {
  /** The folder of the pairing files (created 0700; files 0600). */
  dir: string;
  limits?: Partial<PairingLimits>;
  /** The clock, for tests (default `Date.now`). */
  now?: () => number;
}

/**
 * DM pairing: an unknown user who writes to the bot gets a one-time code, and the owner lets them
 * in with `lich gateway pair <platform> <code>`.
 *
 * Contract:
 * - codes are 8 characters of an unambiguous alphabet from a CSPRNG; only a salted hash is stored;
 * - a code expires after `code_ttl_ms`; at most `max_pending` codes wait per platform; a user gets
 *   at most one code per `user_interval_ms` (a new one replaces the user's older one);
 * - `max_failures` consecutive failed approvals on a platform lock its pairing (no approvals, no
 *   new codes) for `lockout_ms`; a success resets the count;
 * - each platform's state is one JSON file, mode 0600, written atomically under a lock file, so
 *   the gateway and the `pair` command (two processes) can both use it.
 */
export class PairingStore {
  readonly dir: string;
  readonly limits: PairingLimits;
  readonly #now: () => number;

  constructor(options: PairingStoreOptions) {
    this.dir = options.dir;
    this.limits = { ...DEFAULT_PAIRING_LIMITS, ...options.limits };
    this.#now = options.now ?? Date.now;
  }

  /** The file of `platform`. */
  file_path(platform: string): string {
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(platform)) throw new Error(`bad platform name: ${platform}`);
    return join(this.dir, `${platform}.json`);
  }

  /** A code for `user` on `platform`, or why none is given. */
  async request_code(
    platform: string,
    user: { id: string; name: string },
  ): Promise<PairingRequestResult> {
    return this.#update(platform, (file, now) => {
      if (file.locked_until > now) return { ok: false, reason: 'locked_out' };
      const last = file.requested[user.id];
      if (last !== undefined && now - last < this.limits.user_interval_ms) {
        return { ok: false, reason: 'rate_limited' };
      }
      const others = file.pending.filter((entry) => entry.user_id !== user.id);
      if (others.length >= this.limits.max_pending)
        return { ok: false, reason: 'too_many_pending' };
      const code = new_pairing_code();
      file.pending = [
        ...others,
        { ...hash_pairing_code(code), user_id: user.id, user_name: user.name, created_at: now },
      ];
      file.requested[user.id] = now;
      return { ok: true, code, expires_at: now + this.limits.code_ttl_ms };
    });
  }

  /** Approves the user a pending `code` was given to. */
  async approve(platform: string, code: string): Promise<PairingApproveResult> {
    const wanted = normalize_pairing_code(code);
    return this.#update(platform, (file, now) => {
      if (file.locked_until > now) {
        return { ok: false, reason: 'locked_out', failures: file.failures };
      }
      const found = file.pending.find((entry) => pairing_code_matches(entry, wanted));
      if (found === undefined) {
        file.failures += 1;
        if (file.failures >= this.limits.max_failures) {
          file.locked_until = now + this.limits.lockout_ms;
          file.failures = 0;
          return { ok: false, reason: 'locked_out', failures: this.limits.max_failures };
        }
        return { ok: false, reason: 'invalid', failures: file.failures };
      }
      file.pending = file.pending.filter((entry) => entry !== found);
      file.failures = 0;
      file.approved[found.user_id] = { user_name: found.user_name, approved_at: now };
      return { ok: true, user_id: found.user_id, user_name: found.user_name };
    });
  }

  /** True when `user_id` was approved on `platform`. */
  async is_approved(platform: string, user_id: string): Promise<boolean> {
    const file = await this.#read(platform);
    return Object.hasOwn(file.approved, user_id);
  }

  /** The approved user ids of `platform`. */
  async approved(platform: string): Promise<string[]> {
    return Object.keys((await this.#read(platform)).approved);
  }

  /** The approved users of `platform`, with the names they had when let in. */
  async approved_users(platform: string): Promise<{ user_id: string; user_name: string }[]> {
    return Object.entries((await this.#read(platform)).approved).map(([user_id, entry]) => ({
      user_id,
      user_name: entry.user_name,
    }));
  }

  /** The requests still waiting on `platform`. */
  async pending(platform: string): Promise<PendingPairing[]> {
    const file = await this.#read(platform);
    const now = this.#now();
    return file.pending
      .filter((entry) => now - entry.created_at < this.limits.code_ttl_ms)
      .map((entry) => ({
        user_id: entry.user_id,
        user_name: entry.user_name,
        created_at: entry.created_at,
        expires_at: entry.created_at + this.limits.code_ttl_ms,
      }));
  }

  /** Removes an approval; resolves false when the user was not approved. */
  async revoke(platform: string, user_id: string): Promise<boolean> {
    return this.#update(platform, (file) => {
      if (!Object.hasOwn(file.approved, user_id)) return false;
      delete file.approved[user_id];
      return true;
    });
  }

  async #read(platform: string): Promise<PairingFile> {
    const value = await read_json_file(this.file_path(platform));
    if (value === undefined) return empty_file();
    if (typeof value !== 'object' || value === null) {
      throw new Error(`${this.file_path(platform)} is not a pairing file`);
    }
    return { ...empty_file(), ...(value as Partial<PairingFile>) };
  }

  async #update<T>(platform: string, change: (file: PairingFile, now: number) => T): Promise<T> {
    const path = this.file_path(platform);
    return with_file_lock(`${path}.lock`, async () => {
      const file = await this.#read(platform);
      const now = this.#now();
      file.pending = file.pending.filter(
        (entry) => now - entry.created_at < this.limits.code_ttl_ms,
      );
      for (const [user, at] of Object.entries(file.requested)) {
        if (now - at >= this.limits.user_interval_ms) delete file.requested[user];
      }
      const result = change(file, now);
      await write_private_json(path, file);
      return result;
    });
  }
}
