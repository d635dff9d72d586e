/**
 * `@lich/store-postgres`: PostgreSQL storage for Lich, so several gateway (or `lich serve`) nodes
 * share one database: an idempotent inbound log, per-conversation claims that die with their
 * node, fencing tokens on every write, an outbox keyed per chunk, LISTEN/NOTIFY hints with polling
 * as the fallback, ingress leases, and session transcripts. Loaded only when a config names a
 * `postgres://` store.
 */
export {
  type DatabaseOptions,
  is_postgres_url,
  open_pool,
  redact_url,
} from './database.js';
export { acquire_lease, LEASE_CHANNEL } from './ingress_lease.js';
export {
  assert_migrated,
  MIGRATIONS_DIR,
  type MigrateResult,
  type Migration,
  migrate,
  read_migrations,
} from './migrate.js';
export { NodeConnection } from './node_connection.js';
export {
  PgBudgetLedger,
  type PgBudgetLimit,
  type PgBudgetReservation,
  type PgReserveResult,
} from './pg_budget_ledger.js';
export {
  open_postgres_gateway_store,
  PgConversationLock,
  PgConversationLog,
  PgOutbox,
  type PostgresGatewayStore,
  WAKE_CHANNEL,
} from './pg_gateway_store.js';
export {
  open_postgres_session_storage,
  PostgresSessionStorage,
  type PostgresSessionStorageOptions,
} from './pg_session_storage.js';
export {
  DEFAULT_PRUNE_EVERY_MS,
  DEFAULT_RETENTION_MS,
  type PruneResult,
  prune_done,
} from './retention.js';
