/** Builds a bus over the fake host and adapter for the bus's tests. */

import { FakeSessionHost } from '@lich/testkit/session_host';
import { GatewayBus, type GatewayBusOptions } from '../src/gateway_bus.js';
import { memory_store } from '../src/memory_store.js';
import { FakeAdapter } from './fake_adapter.js';

export interface TestBus {
  bus: GatewayBus;
  host: FakeSessionHost;
  adapter: FakeAdapter;
  logs: string[];
}

/** A started bus; by default everyone is allowed (`allow_all`) and nothing is rate limited. */
export async function make_bus(options: Partial<GatewayBusOptions> = {}): Promise<TestBus> {
  const host = (options.host as FakeSessionHost | undefined) ?? new FakeSessionHost();
  const adapter = (options.adapter as FakeAdapter | undefined) ?? new FakeAdapter();
  const logs: string[] = [];
  const bus = new GatewayBus({
    access: { allow_all: true },
    rate_limit: false,
    store: memory_store(),
    on_log: (entry) => logs.push(`${entry.level}: ${entry.message}`),
    ...options,
    host,
    adapter,
  });
  await adapter.start(bus);
  await bus.start();
  return { bus, host, adapter, logs };
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
