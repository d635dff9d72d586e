import { appendFile, readFile, stat } from 'node:fs/promises';
import { make_temp_dir, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { make_message } from '../test/fake_adapter.js';
import { open_jsonl_store } from './jsonl_store.js';
import { memory_store } from './memory_store.js';
import { FencedError, type GatewayStore, type OutboxEntry } from './storage.js';

let temp: TempDir;

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-gateway-store-' });
});

afterEach(async () => {
  await temp.cleanup();
});

function entry(key: string, seq: number, index: number): OutboxEntry {
  return {
    key: `${key}#${seq}#${index}`,
    target: { platform: 'test', account: 'bot', chat_id: key, conversation_key: key },
    seq,
    reply_to: `m${seq}`,
    answers: [`m${seq}`],
    index,
    count: 2,
    text: `chunk ${index}`,
  };
}

const stores: [string, () => Promise<GatewayStore>][] = [
  ['memory', async () => memory_store()],
  ['jsonl', () => open_jsonl_store({ dir: `${temp.path}/state` })],
];

describe.each(stores)('the %s store', (_name, open) => {
  it('appends each platform message once, numbering a conversation from 1', async () => {
    const store = await open();
    const one = make_message({ chat: 'a' });
    expect(await store.log.append(one)).toEqual({ appended: true, seq: 1 });
    expect(await store.log.append({ ...one })).toEqual({ appended: false });
    expect(await store.log.append(make_message({ chat: 'a' }))).toEqual({ appended: true, seq: 2 });
    expect(await store.log.append(make_message({ chat: 'b' }))).toEqual({ appended: true, seq: 1 });
    expect((await store.log.pending('test:a')).map((m) => m.seq)).toEqual([1, 2]);
    expect((await store.log.pending_conversations()).sort()).toEqual(['test:a', 'test:b']);
    await store.close();
  });

  it('marks done up to a seq under a claim, and still refuses the done message', async () => {
    const store = await open();
    const one = make_message({ chat: 'a' });
    await store.log.append(one);
    await store.log.append(make_message({ chat: 'a' }));
    const claim = await store.lock.claim('test:a');
    if (claim === null) throw new Error('no claim');
    expect(await store.lock.claim('test:a')).toBeNull();
    await store.log.mark_done('test:a', 1, claim);
    expect((await store.log.pending('test:a')).map((m) => m.seq)).toEqual([2]);
    expect(await store.log.append({ ...one })).toEqual({ appended: false });
    await store.lock.release(claim);
    await store.close();
  });

  it('fences writes of a claim that is no longer current, and grows the epoch', async () => {
    const store = await open();
    await store.log.append(make_message({ chat: 'a' }));
    const first = await store.lock.claim('test:a');
    if (first === null) throw new Error('no claim');
    await store.lock.release(first);
    const second = await store.lock.claim('test:a');
    if (second === null) throw new Error('no claim');
    expect(second.epoch).toBeGreaterThan(first.epoch);
    expect(await store.lock.holds(first)).toBe(false);
    await expect(store.log.mark_done('test:a', 1, first)).rejects.toBeInstanceOf(FencedError);
    await expect(store.outbox.put([entry('test:a', 1, 0)], first)).rejects.toSatisfy(
      FencedError.is_instance,
    );
    await expect(store.log.bind_session('test:a', 's1', first)).rejects.toThrow(/no longer/);
    expect(await store.log.pending('test:a')).toHaveLength(1);
    await store.lock.release(second);
    await store.close();
  });

  it('keeps outbox entries by key, once, until sent', async () => {
    const store = await open();
    await store.log.append(make_message({ chat: 'test:a' }));
    const claim = await store.lock.claim('test:a');
    if (claim === null) throw new Error('no claim');
    await store.outbox.put([entry('test:a', 1, 1), entry('test:a', 1, 0)], claim);
    await store.outbox.put([{ ...entry('test:a', 1, 0), text: 'recomputed' }], claim);
    const unsent = await store.outbox.unsent('test:a');
    expect(unsent.map((e) => [e.index, e.text])).toEqual([
      [0, 'chunk 0'],
      [1, 'chunk 1'],
    ]);
    await store.outbox.mark_sent(unsent[0]?.key ?? '');
    await store.outbox.mark_sent(unsent[0]?.key ?? '');
    expect((await store.outbox.unsent('test:a')).map((e) => e.index)).toEqual([1]);
    expect(await store.outbox.conversations_with_unsent()).toEqual(['test:a']);
    await store.close();
  });
});

describe('open_jsonl_store', () => {
  it('replays what a previous process left: pending, sessions, unsent chunks, done keys', async () => {
    const dir = `${temp.path}/state`;
    const first = await open_jsonl_store({ dir });
    const done = make_message({ chat: 'a' });
    await first.log.append(done);
    await first.log.append(make_message({ chat: 'a', text: 'waiting' }));
    const claim = await first.lock.claim('test:a');
    if (claim === null) throw new Error('no claim');
    await first.log.bind_session('test:a', 'session-1', claim);
    await first.outbox.put([entry('test:a', 1, 0)], claim);
    await first.log.mark_done('test:a', 1, claim);
    await first.close();
    // a crash mid-write leaves half a line
    await appendFile(`${dir}/gateway.jsonl`, '{"t":"in","seq":9,"mess');

    const second = await open_jsonl_store({ dir });
    expect(await second.log.session_of('test:a')).toBe('session-1');
    expect((await second.log.pending('test:a')).map((m) => m.message.text)).toEqual(['waiting']);
    expect((await second.outbox.unsent('test:a')).map((e) => e.key)).toEqual(['test:a#1#0']);
    expect(await second.log.append({ ...done })).toEqual({ appended: false });
    expect(await second.log.append(make_message({ chat: 'a' }))).toEqual({
      appended: true,
      seq: 3,
    });
    expect((await stat(`${dir}/gateway.jsonl`)).mode & 0o777).toBe(0o600);
    await second.close();
  });

  it('compacts the journal to its live state', async () => {
    const dir = `${temp.path}/state`;
    const store = await open_jsonl_store({ dir, compact_every: 50 });
    for (let index = 0; index < 200; index += 1) {
      await store.log.append(make_message({ chat: 'busy' }));
      const claim = await store.lock.claim('test:busy');
      if (claim === null) throw new Error('no claim');
      await store.log.mark_done('test:busy', index + 1, claim);
      await store.lock.release(claim);
    }
    await store.close();
    const lines = (await readFile(`${dir}/gateway.jsonl`, 'utf8')).trim().split('\n');
    // the done keys are kept (for dedupe), the records of each step are not
    expect(lines.length).toBeLessThan(260);
    const reopened = await open_jsonl_store({ dir });
    expect(await reopened.log.append(make_message({ chat: 'busy' }))).toEqual({
      appended: true,
      seq: 201,
    });
    await reopened.close();
  });
});
