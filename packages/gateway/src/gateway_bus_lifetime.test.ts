import { make_temp_dir, type TempDir } from '@lich/testkit';
import { FakeSessionHost, gate } from '@lich/testkit/session_host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeAdapter, make_message } from '../test/fake_adapter.js';
import { make_bus, sleep } from '../test/support.js';
import { open_jsonl_store } from './jsonl_store.js';
import { start_gateway } from './runner.js';

let temp: TempDir;

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-gateway-life-' });
});

afterEach(async () => {
  await temp.cleanup();
});

/** A bus over the JSONL store in the temp dir and a fake host over `disk`. */
async function durable_bus(disk: FakeSessionHost['disk'], host_options = {}) {
  const host = new FakeSessionHost({ disk, ...host_options });
  const store = await open_jsonl_store({ dir: `${temp.path}/state` });
  return make_bus({ host, store, adapter: new FakeAdapter() });
}

describe('GatewayBus: drain, restart and the outbox', () => {
  it('drains on a stop signal: in-flight runs finish and no accepted message is lost', async () => {
    const host = new FakeSessionHost({
      behaviour: async (turn) => {
        await sleep(30);
        return `re: ${turn.input}`;
      },
    });
    const adapter = new FakeAdapter();
    const { bus } = await make_bus({ host, adapter, max_concurrency: 2 });
    const running = await start_gateway({ bus, adapter, host, signals: ['SIGUSR2'] });
    const accepted: string[] = [];
    for (let index = 0; index < 12; index += 1) {
      const message = make_message({ chat: `c${index % 4}`, text: `m${index}` });
      const result = await bus.receive(message);
      if (result.status === 'accepted') accepted.push(`re: m${index}`);
    }
    await sleep(10); // runs are in flight, most messages still wait
    process.kill(process.pid, 'SIGUSR2');
    await sleep(5);
    expect(adapter.intake).toBe(false);
    expect(await bus.receive(make_message({ text: 'late' }))).toEqual({ status: 'closed' });
    const stopped = await running.stopped;
    expect(stopped).toEqual({ reason: 'SIGUSR2', aborted: 0, forced: false });
    expect(accepted).toHaveLength(12);
    expect(adapter.sent.map((entry) => entry.text).sort()).toEqual([...accepted].sort());
    expect(adapter.closed).toBe(true);
    expect(process.listenerCount('SIGUSR2')).toBe(0);
  });

  it('continues a conversation from its session after a restart', async () => {
    const disk: FakeSessionHost['disk'] = new Map();
    const first = await durable_bus(disk);
    await first.bus.receive(make_message({ chat: 'x', text: 'my name is Ann' }));
    await first.adapter.until(() => first.adapter.settlements.length === 1);
    await first.bus.drain();
    await first.bus.close();
    await first.host.shutdown();

    const second = await durable_bus(disk, {
      behaviour: (turn: { history: { content: string }[]; input: string }) =>
        `you said ${turn.history.length} things before: ${turn.history[0]?.content}`,
    });
    await second.bus.receive(make_message({ chat: 'x', text: 'who am I?' }));
    await second.adapter.until(() => second.adapter.settlements.length === 1);
    expect(second.adapter.texts('test:x')).toEqual(['you said 2 things before: my name is Ann']);
    const [session_id] = [...second.host.live.keys()];
    expect(first.host.prompts[0]?.session_id).toBe(session_id);
    await second.bus.close();
  });

  it('keeps a message whose run the deadline aborted, and answers it on the next start', async () => {
    const disk: FakeSessionHost['disk'] = new Map();
    const never = gate();
    const first = await durable_bus(disk, { behaviour: () => never.promise.then(() => 'x') });
    await first.bus.receive(make_message({ chat: 'slow', text: 'hard question' }));
    await sleep(10);
    expect(await first.bus.drain({ deadline_ms: 30 })).toEqual({ aborted: 1 });
    expect(first.adapter.sent).toEqual([]);
    await first.bus.close();

    const second = await durable_bus(disk);
    await second.adapter.until(() => second.adapter.settlements.length === 1);
    expect(second.adapter.texts('test:slow')).toEqual(['echo: hard question']);
    await second.bus.close();
  });

  it('sends on restart a chunk the platform refused, without asking the model again', async () => {
    const disk: FakeSessionHost['disk'] = new Map();
    const host = new FakeSessionHost({ disk });
    const store = await open_jsonl_store({ dir: `${temp.path}/state` });
    const adapter = new FakeAdapter();
    adapter.fail_sends = 100;
    const first = await make_bus({ host, store, adapter, send_attempts: 2, send_backoff_ms: 1 });
    await first.bus.receive(make_message({ chat: 'down', text: 'hello' }));
    await adapter.until(() => first.logs.some((line) => line.includes('not sent')));
    await first.bus.drain();
    await first.bus.close();

    const second = await durable_bus(disk);
    await second.adapter.until(() => second.adapter.sent.length === 1);
    expect(second.adapter.texts('test:down')).toEqual(['echo: hello']);
    expect(second.host.prompts).toEqual([]);
    await second.bus.close();
  });

  it('retries a send that fails a few times, then marks it sent', async () => {
    const adapter = new FakeAdapter();
    adapter.fail_sends = 2;
    const { bus } = await make_bus({ adapter, send_backoff_ms: 1 });
    await bus.receive(make_message({ chat: 'flaky' }));
    await adapter.until(() => adapter.settlements.length === 1);
    expect(adapter.sent).toHaveLength(1);
    expect(await bus.store.outbox.unsent('test:flaky')).toEqual([]);
  });

  it('a second stop signal cuts the drain short', async () => {
    const never = gate();
    const host = new FakeSessionHost({ behaviour: () => never.promise.then(() => 'x') });
    const adapter = new FakeAdapter();
    const { bus } = await make_bus({ host, adapter });
    const running = await start_gateway({
      bus,
      adapter,
      host,
      signals: ['SIGUSR2'],
      drain_deadline_ms: 60_000,
    });
    await bus.receive(make_message({ text: 'stuck' }));
    await sleep(10);
    process.kill(process.pid, 'SIGUSR2');
    await sleep(10);
    process.kill(process.pid, 'SIGUSR2');
    expect(await running.stopped).toMatchObject({ forced: true });
  });
});
