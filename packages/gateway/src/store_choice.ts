import { join } from 'node:path';
import type { BudgetLedger, SessionHostOptions } from '@lich/agent';
import type { GatewayLogEntry } from './gateway_bus.js';
import { GatewayConfigError } from './gateway_config.js';
import { open_jsonl_store } from './jsonl_store.js';
import type { GatewayStore } from './storage.js';

/** The package that keeps gateways on PostgreSQL, imported only when a store names it. */
export const STORE_POSTGRES_PACKAGE = '@lich/store-postgres';

const DAY_MS = 24 * 60 * 60 * 1000;

type SessionStorage = Exclude<SessionHostOptions['storage'], false | undefined>;

/** What the gateway needs of `@lich/store-postgres` (typed here: it is not a dependency). */
interface StorePostgresModule {
  open_postgres_gateway_store(options: {
    url: string;
    application_name?: string;
    retention_ms?: number;
  }): Promise<GatewayStore & { pool: unknown }>;
  open_postgres_session_storage(
    options: { url: string },
    extra: { pool?: unknown },
  ): Promise<SessionStorage>;
  redact_url(url: string): string;
  PgBudgetLedger: new (pool: never) => BudgetLedger;
}

/** The stores a gateway process runs on. */
export interface ChosenStore {
  store: GatewayStore;
  /** Where the host keeps sessions: undefined for its default (the JSONL files). */
  session_storage: SessionStorage | undefined;
  /** For the log: where conversations live. */
  where: string;
  /** Where budgets are kept when every node must share them: undefined for the process's memory. */
  budget_ledger?: BudgetLedger;
}

function is_missing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(name);
}

/**
 * Opens the store a gateway process runs on: with `url` (`postgres://…`) the PostgreSQL store and
 * session storage of `@lich/store-postgres`, shared by every node on that database; without it,
 * the JSONL store under `state_dir` and the host's default session files.
 *
 * Contract: throws `GatewayConfigError` when the package is not installed (saying how to install
 * it) or the database is not migrated (saying to run `lich db migrate`); other connection
 * failures reject as they are.
 */
export async function open_gateway_store(input: {
  url: string | undefined;
  platform: string;
  state_dir: string;
  log: (entry: GatewayLogEntry) => void;
  /** How long the PostgreSQL store keeps answered work (its default: 7 days); not for JSONL. */
  retention_days?: number;
}): Promise<ChosenStore> {
  const { url, platform } = input;
  if (url === undefined) {
    if (input.retention_days !== undefined) {
      input.log({
        level: 'warn',
        message: 'retention_days applies to a postgres:// store; the JSONL store compacts instead',
      });
    }
    const dir = join(input.state_dir, platform);
    return { store: await open_jsonl_store({ dir }), session_storage: undefined, where: dir };
  }
  let loaded: StorePostgresModule;
  try {
    // a variable specifier: bundlers and tsc leave the optional package alone
    const name = STORE_POSTGRES_PACKAGE;
    loaded = (await import(name)) as StorePostgresModule;
  } catch (error) {
    if (!is_missing(error, STORE_POSTGRES_PACKAGE)) throw error;
    throw new GatewayConfigError(
      `the store ${url.split('@').pop()} needs ${STORE_POSTGRES_PACKAGE}: install it next to the gateway (npm i -g ${STORE_POSTGRES_PACKAGE}), then run lich db migrate`,
    );
  }
  let store: GatewayStore & { pool: unknown };
  try {
    store = await loaded.open_postgres_gateway_store({
      url,
      application_name: `lich-gateway-${platform}`,
      ...(input.retention_days === undefined
        ? {}
        : { retention_ms: input.retention_days * DAY_MS }),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (message.includes('lich db migrate')) throw new GatewayConfigError(message);
    throw new Error(`cannot open the store ${loaded.redact_url(url)}: ${message}`, {
      cause: error,
    });
  }
  const session_storage = await loaded.open_postgres_session_storage({ url }, { pool: store.pool });
  // every node reserves against the same sums: a sender's daily budget holds across nodes
  const budget_ledger = new loaded.PgBudgetLedger(store.pool as never);
  return { store, session_storage, where: loaded.redact_url(url), budget_ledger };
}
