import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { type InboundMessage, message_key } from './inbound_message.js';
import {
  MemoryLock,
  MemoryLog,
  MemoryOutbox,
  MemoryState,
  type MemoryStoreOptions,
} from './memory_store.js';
import type { GatewayStore, OutboxEntry } from './storage.js';

/** How the JSONL store is opened. */
export interface JsonlStoreOptions extends MemoryStoreOptions {
  /** The folder of the journal (`gateway.jsonl`, mode 0600). */
  dir: string;
  /** Rewrite the journal to its live state after this many records (default 20 000). */
  compact_every?: number;
}

type JournalRecord =
  | { t: 'conv'; key: string; next_seq: number; session_id: string | null }
  | { t: 'in'; seq: number; at: number; message: InboundMessage }
  | { t: 'done'; key: string; seq: number; at: number }
  | { t: 'bind'; key: string; session_id: string }
  | { t: 'out'; entry: OutboxEntry }
  | { t: 'sent'; key: string }
  | { t: 'seen'; key: string; at: number };

/** Applies one journal record; every record is idempotent, so applying one twice is harmless. */
function apply(state: MemoryState, record: JournalRecord): void {
  switch (record.t) {
    case 'conv': {
      const conversation = state.conversation(record.key);
      conversation.next_seq = Math.max(conversation.next_seq, record.next_seq);
      if (record.session_id !== null) conversation.session_id = record.session_id;
      return;
    }
    case 'in': {
      const key = message_key(record.message);
      if (state.pending_keys.has(key) || state.done_keys.has(key)) return;
      const conversation = state.conversation(record.message.conversation_key);
      if (conversation.pending.some((logged) => logged.seq === record.seq)) return;
      state.append(record.message, record.seq, record.at);
      return;
    }
    case 'done':
      state.mark_done(record.key, record.seq);
      return;
    case 'bind':
      state.bind(record.key, record.session_id);
      return;
    case 'out':
      state.put(record.entry);
      return;
    case 'sent':
      state.mark_sent(record.key);
      return;
    case 'seen':
      state.done_keys.remember(record.key, record.at);
      return;
  }
}

/** The live state as records: what a compacted journal holds. */
function snapshot(state: MemoryState): JournalRecord[] {
  const records: JournalRecord[] = [];
  for (const [key, at] of state.done_keys.entries()) records.push({ t: 'seen', key, at });
  for (const [key, conversation] of state.conversations) {
    records.push({
      t: 'conv',
      key,
      next_seq: conversation.next_seq,
      session_id: conversation.session_id,
    });
    for (const logged of conversation.pending) {
      records.push({ t: 'in', seq: logged.seq, at: logged.logged_at, message: logged.message });
    }
  }
  for (const entry of state.outbox.values()) records.push({ t: 'out', entry });
  return records;
}

function to_lines(records: readonly JournalRecord[]): string {
  return records.map((record) => `${JSON.stringify(record)}\n`).join('');
}

/**
 * The embedded durable store: the in-memory state, journalled to `<dir>/gateway.jsonl`. A
 * restarted gateway replays it and carries on: pending messages, the session of each
 * conversation, unsent reply chunks, and the keys of recently done messages.
 *
 * Contract: each change resolves once its record is written to the file (a crash of the process
 * after that loses nothing; fsync is left to the OS); a torn last line (a crash mid-write) is
 * skipped; the journal is rewritten to its live state at open and every `compact_every` records;
 * one process only (it is not a lock between processes).
 */
export async function open_jsonl_store(options: JsonlStoreOptions): Promise<GatewayStore> {
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const path = join(options.dir, 'gateway.jsonl');
  const state = new MemoryState(options);
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let record: JournalRecord;
    try {
      record = JSON.parse(line) as JournalRecord;
    } catch {
      continue; // a torn line: the write it belonged to never completed
    }
    apply(state, record);
  }
  const compact_every = options.compact_every ?? 20_000;
  let handle = await open(path, 'a', 0o600);
  let written = 0;
  let queue: Promise<void> = Promise.resolve();
  let closed = false;

  async function compact(): Promise<void> {
    const temp = `${path}.compact`;
    const fresh = await open(temp, 'w', 0o600);
    try {
      await fresh.writeFile(to_lines(snapshot(state)));
      await fresh.sync();
    } finally {
      await fresh.close();
    }
    await handle.close();
    await rename(temp, path);
    handle = await open(path, 'a', 0o600);
    written = 0;
  }

  function journal(record: object): Promise<void> {
    const next = queue.then(async () => {
      if (closed) throw new Error('the gateway store is closed');
      await handle.write(`${JSON.stringify(record)}\n`);
      written += 1;
      if (written >= compact_every) await compact();
    });
    // one failed write must not stop the ones after it
    queue = next.catch(() => undefined);
    return next;
  }

  await compact();
  return {
    log: new MemoryLog(state, journal),
    lock: new MemoryLock(state),
    outbox: new MemoryOutbox(state, journal),
    close: async () => {
      if (closed) return;
      await queue;
      closed = true;
      await handle.close();
    },
  };
}
