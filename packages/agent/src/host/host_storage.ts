import { resolve } from 'node:path';
import type { Message } from '@lich/core';
import {
  is_valid_session_id,
  SessionError,
  type SessionHandle,
  type SessionStorage,
  type SessionSummary,
} from '@lich/session';
import { SessionHostError } from './session_host_error.js';
import type { ApprovalMode, SessionInfo } from './session_host_types.js';

function message_of(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function unknown_session(session_id: unknown): SessionHostError {
  return new SessionHostError('unknown_session', `no session ${String(session_id)}`);
}

/** What is known of a session on disk that is not live. */
export function summary_info(summary: SessionSummary, approval_mode: ApprovalMode): SessionInfo {
  return {
    session_id: summary.id,
    title: summary.title,
    path: summary.path,
    work_dir: summary.work_dir,
    model: summary.model,
    provider: 'unknown',
    created: summary.created,
    updated: summary.updated,
    live: false,
    busy: false,
    queued: 0,
    approval_mode,
    usage_total: summary.usage,
    ...(summary.parent_session_id === undefined
      ? {}
      : { parent_session_id: summary.parent_session_id }),
  };
}

/**
 * A host's `SessionStorage` (or none: sessions in memory only), its failures mapped onto
 * `SessionHostError` codes: a session it does not hold is `unknown_session`, one it cannot open
 * `unavailable`.
 */
export class HostStorage {
  readonly #storage: SessionStorage | null;
  /** The work dir whose sessions this host sees (resolved), or null for every session. */
  readonly #scope: string | null;

  constructor(storage: SessionStorage | null, scope: string | null = null) {
    this.#storage = storage;
    this.#scope = scope === null ? null : resolve(scope);
  }

  #in_scope(summary: SessionSummary): boolean {
    return this.#scope === null || resolve(summary.work_dir ?? '') === this.#scope;
  }

  /** Throws `unknown_session` for a session outside the scope (no storage lookup without one). */
  async #check_scope(session_id: string): Promise<void> {
    if (this.#scope !== null) await this.summary(session_id);
  }

  /** True when sessions are recorded. */
  get recorded(): boolean {
    return this.#storage !== null;
  }

  /** A new session handle, or null when nothing is recorded or it failed (after `on_warning`). */
  async create(
    start: { work_dir: string; model: string; lich_version: string },
    on_warning: (text: string) => void,
  ): Promise<SessionHandle | null> {
    if (this.#storage === null) return null;
    try {
      return await this.#storage.create(start);
    } catch (error) {
      on_warning(`the session is not recorded: ${message_of(error)}`);
      return null;
    }
  }

  /** Opens a recorded session for appending. */
  async open(session_id: string): Promise<SessionHandle> {
    if (this.#storage === null || !is_valid_session_id(session_id)) {
      throw unknown_session(session_id);
    }
    await this.#check_scope(session_id);
    try {
      return await this.#storage.open(session_id);
    } catch (error) {
      if (error instanceof SessionError && error.code === 'not_found') {
        throw unknown_session(session_id);
      }
      throw new SessionHostError(
        'unavailable',
        `session ${session_id} cannot be opened: ${message_of(error)}`,
      );
    }
  }

  /**
   * `messages` (read from a session's records) with their pictures' bytes loaded back from the
   * storage's blobs, where it keeps pictures apart; as they are otherwise.
   */
  async load_images(messages: Message[]): Promise<Message[]> {
    return (await this.#storage?.load_images?.(messages)) ?? messages;
  }

  /** The readable sessions on disk, of the host's scope. */
  async summaries(): Promise<SessionSummary[]> {
    if (this.#storage === null) return [];
    return (await this.#storage.list()).filter(
      (summary) => summary.problem === undefined && this.#in_scope(summary),
    );
  }

  /** One session's summary; `unknown_session` when there is none. */
  async summary(session_id: string): Promise<SessionSummary> {
    const found =
      this.#storage === null || !is_valid_session_id(session_id)
        ? undefined
        : (await this.summaries()).find((summary) => summary.id === session_id);
    if (found === undefined) throw unknown_session(session_id);
    return found;
  }

  /** A recorded session's conversation. */
  async read(session_id: string): Promise<Message[]> {
    if (this.#storage === null || !is_valid_session_id(session_id)) {
      throw unknown_session(session_id);
    }
    await this.#check_scope(session_id);
    try {
      return await this.#storage.read(session_id);
    } catch (error) {
      if (error instanceof SessionError && error.code === 'not_found') {
        throw unknown_session(session_id);
      }
      throw error;
    }
  }

  /** Deletes a recorded session; false when there was none. */
  async delete(session_id: string): Promise<boolean> {
    if (this.#storage === null || !is_valid_session_id(session_id)) return false;
    if (this.#scope !== null && !(await this.summaries()).some((s) => s.id === session_id)) {
      return false;
    }
    return this.#storage.delete(session_id);
  }
}
