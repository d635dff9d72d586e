import { describe, expect, it } from 'vitest';
import { UpdateQueue } from './update_queue.js';

interface Update {
  update_id: number;
  chat: string;
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open: () => open() };
}

function queue(handle: (update: Update) => Promise<void>) {
  const errors: number[] = [];
  const made = new UpdateQueue<Update>({
    handle,
    chat_of: (update) => update.chat,
    on_error: (update) => errors.push(update.update_id),
  });
  return { queue: made, errors };
}

const u = (update_id: number, chat: string): Update => ({ update_id, chat });

describe('UpdateQueue', () => {
  it("runs chats side by side, each chat's updates in order, and acknowledges only what finished", async () => {
    const slow = gate();
    const order: number[] = [];
    const { queue: q } = queue(async (update) => {
      if (update.update_id === 1) await slow.promise;
      order.push(update.update_id);
    });
    expect(q.take([u(1, 'a'), u(2, 'b'), u(3, 'a')])).toBe(3);
    await q.settled(50);
    // b went past a's slow picture; a's second waits behind its first
    expect(order).toEqual([2]);
    expect(q.offset()).toBe(1);
    expect(q.running).toBe(true);
    // a poll brings the unacknowledged ones again, and a new one: only the new one is taken
    expect(q.take([u(1, 'a'), u(2, 'b'), u(3, 'a'), u(4, 'b')])).toBe(1);
    slow.open();
    await q.idle();
    expect(order).toEqual([2, 4, 1, 3]);
    expect(q.offset()).toBe(5);
    expect(q.running).toBe(false);
    expect(q.take([u(5, 'a')])).toBe(1);
    await q.idle();
    expect(q.offset()).toBe(6);
  });

  it("gives a failed update back with its chat's later ones, and takes them again in order", async () => {
    let fail = true;
    const order: number[] = [];
    const { queue: q, errors } = queue(async (update) => {
      if (update.update_id === 2 && fail) throw new Error('the log is away');
      order.push(update.update_id);
    });
    q.take([u(1, 'b'), u(2, 'a'), u(3, 'b'), u(4, 'a')]);
    await q.idle();
    expect(errors).toEqual([2]);
    expect(q.take_failure()).toBe(true);
    expect(q.take_failure()).toBe(false);
    // 4 waited behind the failed 2: given back, not run
    expect(order).toEqual([1, 3]);
    expect(q.offset()).toBe(2);
    fail = false;
    // Telegram sends from the offset again: 2 and 4 are taken anew, 3 is known
    expect(q.take([u(2, 'a'), u(3, 'b'), u(4, 'a')])).toBe(2);
    await q.idle();
    expect(order).toEqual([1, 3, 2, 4]);
    expect(q.offset()).toBe(5);
  });
});
