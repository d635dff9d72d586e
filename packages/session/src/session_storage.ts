import type { Message } from '@lich/core';
import type { SessionHandle } from './handle.js';
import type { SessionSummary } from './list.js';
import type { CreateSessionOptions, OpenSessionOptions } from './store.js';

/**
 * Where sessions live: the narrow interface a `SessionHost` (and any other long-lived user of
 * sessions) needs, so another backend (PostgreSQL) can stand in for the JSONL files.
 * `SessionStore` is the JSONL implementation.
 *
 * Contract:
 * - `create` and `open` resolve with a handle holding the session's write claim (appends go
 *   through `SessionHandle.append`), or reject with a `SessionError`;
 * - `read` is the conversation a next run continues from (no claim taken); `list` describes every
 *   session, most recently updated first; `delete` removes a session that nobody holds open and
 *   resolves false when there was none.
 */
export interface SessionStorage {
  /** Where sessions are kept, for people (a folder, a database URL without its password). */
  readonly location: string;
  create(options: CreateSessionOptions): Promise<SessionHandle>;
  open(id: string, options?: OpenSessionOptions): Promise<SessionHandle>;
  read(id: string, options?: { signal?: AbortSignal }): Promise<Message[]>;
  list(options?: { signal?: AbortSignal }): Promise<SessionSummary[]>;
  delete(id: string): Promise<boolean>;
  /**
   * `messages` (from a handle's state) with the bytes of each picture stored by reference read
   * back (`resolve_images`). A storage that keeps pictures inline leaves this out.
   */
  load_images?(messages: Message[]): Promise<Message[]>;
}
