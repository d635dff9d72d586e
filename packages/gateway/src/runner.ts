import type { SessionHost } from '@lich/agent';
import type { GatewayAdapter } from './adapter.js';
import type { GatewayBus, GatewayLogEntry } from './gateway_bus.js';
import type { IngressLease } from './storage.js';

/** How a gateway process runs. */
export interface StartGatewayOptions {
  bus: GatewayBus;
  adapter: GatewayAdapter;
  host: SessionHost;
  /** How long in-flight runs may take to finish after a stop signal (default 30 s). */
  drain_deadline_ms?: number;
  /** The signals that stop it (default SIGINT and SIGTERM); `[]` for none (tests, embedding). */
  signals?: readonly NodeJS.Signals[];
  /** The ingress lease a single-consumer adapter waits for on a shared store (`ingress:<platform>`). */
  lease_name?: string;
  on_log?: (entry: GatewayLogEntry) => void;
}

/** What `RunningGateway.stopped` and `stop()` resolve with. */
export interface GatewayStopped {
  /** The signal, `stop` when `stop()` was called, or `lease_lost` when the ingress lease was. */
  reason: NodeJS.Signals | 'stop' | 'lease_lost';
  /** Conversations whose run was aborted at the deadline (their messages wait for the next start). */
  aborted: number;
  /** True when a second signal cut the drain short. */
  forced: boolean;
}

/** A gateway `start_gateway` started; it runs until a signal, `stop()` or a lost lease. */
export interface RunningGateway {
  /** Resolves once the gateway has stopped and released everything. */
  readonly stopped: Promise<GatewayStopped>;
  /** Stops it as a signal would. Idempotent. */
  stop(): Promise<GatewayStopped>;
}

/**
 * Starts a gateway: the bus (which resumes what a previous process left), then the adapter; and
 * stops it on SIGINT/SIGTERM. A single-consumer adapter (`single_consumer`) on a shared store
 * starts only once this node holds the store's ingress lease; until then the node works the log
 * only. Losing the lease stops the gateway (`lease_lost`), so that two nodes never poll at once.
 *
 * Contract: on the first signal (or `stop`) the adapter stops taking messages, the bus answers
 * every accepted message for up to `drain_deadline_ms` and then aborts the runs left (their
 * messages stay in the store for the next start), the host shuts down, the store and the adapter
 * close; `stopped` resolves after all of that. A second signal during the drain cuts it short
 * (`forced`). The handlers are removed once stopped. The process is not exited here: the bin does
 * that with the code it chooses.
 */
export async function start_gateway(options: StartGatewayOptions): Promise<RunningGateway> {
  const { bus, adapter, host } = options;
  const log = options.on_log ?? (() => undefined);
  const deadline = options.drain_deadline_ms ?? 30_000;
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  await bus.start();
  const waiting = new AbortController();
  let lease: IngressLease | null = null;

  let stopping: Promise<GatewayStopped> | null = null;
  let force: (() => void) | null = null;
  let resolve_stopped!: (stopped: GatewayStopped) => void;
  const stopped = new Promise<GatewayStopped>((resolve) => {
    resolve_stopped = resolve;
  });

  const stop = (reason: GatewayStopped['reason']): Promise<GatewayStopped> => {
    if (stopping !== null) {
      if (reason !== 'stop' && reason !== 'lease_lost') force?.();
      return stopping;
    }
    waiting.abort();
    stopping = (async () => {
      log({ level: 'info', message: `${reason}: draining (up to ${deadline} ms)` });
      let forced = false;
      const cut = new Promise<void>((resolve) => {
        force = () => {
          forced = true;
          resolve();
        };
      });
      await adapter.stop_intake().catch(() => undefined);
      const drained = bus.drain({ deadline_ms: deadline });
      const result = await Promise.race([drained, cut.then(() => ({ aborted: -1 }))]);
      await host.shutdown({ deadline_ms: forced ? 0 : 1_000 }).catch(() => undefined);
      if (forced) await drained.catch(() => undefined);
      await bus.close().catch(() => undefined);
      await adapter.close().catch(() => undefined);
      await lease?.release().catch(() => undefined);
      for (const signal of signals) process.off(signal, on_signal);
      const summary: GatewayStopped = { reason, aborted: Math.max(0, result.aborted), forced };
      log({
        level: 'info',
        message: `gateway ${adapter.platform} stopped${forced ? ' (forced)' : ''}`,
      });
      resolve_stopped(summary);
      return summary;
    })();
    return stopping;
  };

  const on_signal = (signal: NodeJS.Signals) => {
    void stop(signal);
  };
  for (const signal of signals) process.on(signal, on_signal);
  const acquire = bus.store.acquire_lease?.bind(bus.store);
  if (adapter.single_consumer === true && bus.store.shared === true && acquire !== undefined) {
    const name = options.lease_name ?? `ingress:${adapter.platform}`;
    log({ level: 'info', message: `working the log; waiting for the ingress lease ${name}` });
    try {
      lease = await acquire(name, { signal: waiting.signal });
    } catch (error) {
      if (!waiting.signal.aborted) {
        await stop('stop');
        throw error;
      }
      return { stopped, stop: () => stop('stop') }; // stopped while waiting
    }
    log({ level: 'info', message: `holding the ingress lease ${name} (epoch ${lease.epoch})` });
    void lease.lost.then(() => {
      if (stopping !== null) return;
      log({ level: 'error', message: `the ingress lease ${name} was lost: stopping` });
      void stop('lease_lost');
    });
  }
  try {
    await adapter.start(bus);
  } catch (error) {
    for (const signal of signals) process.off(signal, on_signal);
    await lease?.release().catch(() => undefined);
    throw error;
  }
  log({ level: 'info', message: `gateway ${adapter.platform} is up` });
  return { stopped, stop: () => stop('stop') };
}
