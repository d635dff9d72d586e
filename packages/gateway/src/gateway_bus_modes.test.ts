import { FakeSessionHost, gate } from '@lich/testkit/session_host';
import { describe, expect, it } from 'vitest';
import { make_message } from '../test/fake_adapter.js';
import { make_bus, sleep } from '../test/support.js';

describe('GatewayBus: what a message arriving mid-run does', () => {
  it('queue: runs it after, one prompt per message, in order', async () => {
    const first = gate();
    const host = new FakeSessionHost({
      behaviour: async (turn) => {
        if (turn.input === 'one') await first.promise;
        return `re: ${turn.input}`;
      },
    });
    const { bus, adapter } = await make_bus({ host });
    await bus.receive(make_message({ text: 'one' }));
    await bus.receive(make_message({ text: 'two' }));
    await bus.receive(make_message({ text: 'three' }));
    await sleep(20);
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['one']);
    first.open();
    await adapter.until(() => adapter.settlements.length === 3);
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['one', 'two', 'three']);
    expect(adapter.texts('test:c1')).toEqual(['re: one', 're: two', 're: three']);
  });

  it('steer: gives it to the run, whose one reply answers both', async () => {
    const tool_round = gate();
    const host = new FakeSessionHost({
      behaviour: async (turn) => {
        await tool_round.promise; // a tool runs; then the loop takes the steering
        const steered = turn.take_steering();
        return `re: ${[turn.input, ...steered].join(' + ')}`;
      },
    });
    const { bus, adapter } = await make_bus({ host, mode: 'steer' });
    const one = make_message({ text: 'find the bug' });
    const two = make_message({ text: 'in parser.ts' });
    await bus.receive(one);
    await sleep(10);
    expect(await bus.receive(two)).toMatchObject({ status: 'accepted' });
    tool_round.open();
    await adapter.until(() => adapter.settlements.length === 2);
    expect(host.prompts).toHaveLength(1);
    expect(adapter.texts('test:c1')).toEqual(['re: find the bug + in parser.ts']);
    expect(adapter.sent[0]?.answers).toEqual([one.platform_message_id, two.platform_message_id]);
    expect(adapter.settlements.map((s) => s.reply?.text)).toEqual([
      're: find the bug + in parser.ts',
      're: find the bug + in parser.ts',
    ]);
  });

  it('steer: a message the run could not take is answered by the turn the host runs next', async () => {
    const answering = gate();
    const host = new FakeSessionHost({
      behaviour: async (turn) => {
        if (turn.input === 'first') await answering.promise; // the last model call: no tools
        return `re: ${turn.input}`;
      },
    });
    const { bus, adapter } = await make_bus({ host, mode: 'steer' });
    await bus.receive(make_message({ text: 'first' }));
    await sleep(10);
    await bus.receive(make_message({ text: 'late' }));
    answering.open();
    await adapter.until(() => adapter.settlements.length === 2);
    // the host ran the leftover steering itself; the bus did not prompt it again
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['first', 'late']);
    expect(adapter.texts('test:c1')).toEqual(['re: first', 're: late']);
    await bus.receive(make_message({ text: 'after' }));
    await adapter.until(() => adapter.settlements.length === 3);
    expect(adapter.texts('test:c1')).toEqual(['re: first', 're: late', 're: after']);
  });

  it('collect: merges what waits into one prompt once the conversation is quiet', async () => {
    const first = gate();
    const host = new FakeSessionHost({
      behaviour: async (turn) => {
        if (turn.input === 'start') await first.promise;
        return `re: ${turn.input.replaceAll('\n\n', ' | ')}`;
      },
    });
    const { bus, adapter } = await make_bus({ host, mode: 'collect', collect_debounce_ms: 40 });
    await bus.receive(make_message({ text: 'start' }));
    await sleep(60);
    for (const text of ['a', 'b', 'c']) {
      await bus.receive(make_message({ text }));
      await sleep(5);
    }
    first.open();
    await adapter.until(() => adapter.settlements.length === 4);
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['start', 'a\n\nb\n\nc']);
    expect(adapter.texts('test:c1')).toEqual(['re: start', 're: a | b | c']);
    const merged = adapter.settlements.slice(1);
    expect(new Set(merged.map((s) => s.reply?.key)).size).toBe(1);
  });

  it('collect: waits for the debounce even when nothing runs', async () => {
    const { bus, host, adapter } = await make_bus({ mode: 'collect', collect_debounce_ms: 50 });
    await bus.receive(make_message({ text: 'x' }));
    await sleep(10);
    await bus.receive(make_message({ text: 'y' }));
    await adapter.until(() => adapter.settlements.length === 2);
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['x\n\ny']);
  });

  it('takes the mode of each conversation from mode_of', async () => {
    const { bus, host, adapter } = await make_bus({
      mode_of: (key) => (key === 'test:merge' ? 'collect' : 'queue'),
      collect_debounce_ms: 30,
    });
    for (const chat of ['merge', 'queue']) {
      await bus.receive(make_message({ chat, text: `${chat} 1` }));
      await bus.receive(make_message({ chat, text: `${chat} 2` }));
    }
    await adapter.until(() => adapter.settlements.length === 4);
    expect(host.prompts.map((prompt) => prompt.input).sort()).toEqual([
      'merge 1\n\nmerge 2',
      'queue 1',
      'queue 2',
    ]);
  });
});
