import { hostname } from 'node:os';
import type { IngressLease } from '@lich/gateway';
import type pg from 'pg';
import type { NodeConnection } from './node_connection.js';

/** The NOTIFY channel a released lease is announced on (payload: its name). */
export const LEASE_CHANNEL = 'lich_lease_free';

const LEASE_KEY = "hashtextextended('lich:lease:' || $1, 0)";

/** How often a node waiting for a lease tries again without a hint (ms). */
const LEASE_RETRY_MS = 1_000;

/**
 * Waits until this node holds lease `name` (an advisory lock on its node connection), records the
 * holder in `leases`, and resolves the lease. Rejects when `signal` fires first.
 *
 * Contract: at most one node holds a lease at a time; the lease is `lost` when the node
 * connection is (the server frees it then, and another node takes it within about a second);
 * `release` gives it up and wakes the nodes waiting for it; idempotent.
 */
export async function acquire_lease(
  pool: pg.Pool,
  node: NodeConnection,
  name: string,
  options: { signal?: AbortSignal } = {},
): Promise<IngressLease> {
  const { signal } = options;
  let wake: () => void = () => undefined;
  const unlisten = await node
    .listen(LEASE_CHANNEL, (payload) => {
      if (payload === name) wake();
    })
    .catch(() => () => undefined);
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { rows, generation } = await node.query<{ locked: boolean }>(
        `SELECT pg_try_advisory_lock(${LEASE_KEY}) AS locked`,
        [name],
      );
      if (rows[0]?.locked === true) {
        const holder = `${hostname()}:${process.pid}`;
        const taken = await pool.query<{ epoch: string }>(
          `INSERT INTO leases (name, holder) VALUES ($1, $2)
           ON CONFLICT (name) DO UPDATE SET holder = $2, epoch = leases.epoch + 1, taken_at = now()
           RETURNING epoch`,
          [name, holder],
        );
        return make_lease(node, name, Number(taken.rows[0]?.epoch), generation);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, LEASE_RETRY_MS);
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          wake = () => undefined;
          resolve();
        }
        wake = done;
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  } finally {
    unlisten();
  }
}

function make_lease(
  node: NodeConnection,
  name: string,
  epoch: number,
  generation: number,
): IngressLease {
  let mark_lost: () => void = () => undefined;
  const lost = new Promise<void>((resolve) => {
    mark_lost = resolve;
  });
  const off = node.on_lost(() => mark_lost());
  if (node.generation !== generation) mark_lost();
  let released: Promise<void> | null = null;
  return {
    name,
    epoch,
    lost,
    release: () => {
      released ??= (async () => {
        off();
        if (node.generation !== generation) return;
        await node
          .query(`SELECT pg_advisory_unlock(${LEASE_KEY}), pg_notify('${LEASE_CHANNEL}', $1)`, [
            name,
          ])
          .catch(() => undefined);
      })();
      return released;
    },
  };
}
