import type { ChatFn } from '@lich/core';
import type { Agent } from '../agent.js';

/**
 * `chat` with the agent's prices loaded by the time each call returns, so its `llm_end` is
 * priced. The price catalog takes some 40 ms of CPU to import (`load_price_book`): the first call
 * does not wait for it before its request goes out, it is imported once the answer starts to
 * stream (while the model is still writing), or when a call that streamed nothing returns.
 */
export function priced_chat(chat: ChatFn, agent: Pick<Agent, 'price_book'>): ChatFn {
  return async (messages, tools, options = {}) => {
    const { on_delta } = options;
    let loading = false;
    const result = await chat(messages, tools, {
      ...options,
      on_delta: (delta) => {
        if (!loading) {
          loading = true;
          void agent.price_book();
        }
        on_delta?.(delta);
      },
    });
    await agent.price_book();
    return result;
  };
}
