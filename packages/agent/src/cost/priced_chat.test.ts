import type { ChatFn, ChatResult } from '@lich/core';
import { describe, expect, it } from 'vitest';
import { PriceBook } from './price_book.js';
import { priced_chat } from './priced_chat.js';

const ANSWER: ChatResult = { message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' };

/** An agent whose `price_book` logs when it is asked and resolves when `release` is called. */
function agent_with_book(log: string[]) {
  let release = () => {};
  const ready = new Promise<void>((resolve) => {
    release = resolve;
  });
  let book: Promise<PriceBook> | undefined;
  return {
    release: () => release(),
    agent: {
      price_book() {
        log.push('price_book');
        book ??= ready.then(() => {
          log.push('loaded');
          return new PriceBook({});
        });
        return book;
      },
    },
  };
}

describe('priced_chat', () => {
  it('sends the request first, loads the prices once the answer streams, and returns after them', async () => {
    const log: string[] = [];
    const { agent, release } = agent_with_book(log);
    const chat: ChatFn = async (_messages, _tools, options) => {
      log.push('request');
      options?.on_delta?.({ kind: 'text', text: 'h' });
      options?.on_delta?.({ kind: 'text', text: 'i' });
      return ANSWER;
    };
    const deltas: string[] = [];
    const answered = priced_chat(chat, agent)([], [], {
      on_delta: (delta) => deltas.push(delta.text),
    }).then((result) => {
      log.push('returned');
      return result;
    });
    await new Promise((resolve) => setImmediate(resolve));
    // the call is over but its end waits for the prices
    expect(log).toEqual(['request', 'price_book', 'price_book']);
    release();
    expect(await answered).toBe(ANSWER);
    expect(log).toEqual(['request', 'price_book', 'price_book', 'loaded', 'returned']);
    expect(deltas).toEqual(['h', 'i']);
  });

  it('loads the prices after a call that streamed nothing, and passes a failure through', async () => {
    const log: string[] = [];
    const { agent, release } = agent_with_book(log);
    release();
    const quiet: ChatFn = async () => {
      log.push('request');
      return ANSWER;
    };
    expect(await priced_chat(quiet, agent)([], [])).toBe(ANSWER);
    expect(log).toEqual(['request', 'price_book', 'loaded']);
    const failing: ChatFn = async () => {
      throw new Error('no model');
    };
    await expect(priced_chat(failing, agent)([], [])).rejects.toThrow('no model');
  });
});
