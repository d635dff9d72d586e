import { describe, expect, it } from 'vitest';
import { history_problems, queued_chat, reply, until_abort } from '../test/support.js';
import {
  compress_messages,
  plan_compression,
  SUMMARY_PREFIX,
  should_compress,
} from './compressor.js';
import type { Message } from './types.js';

const system: Message = { role: 'system', content: 'sys' };
const first: Message = { role: 'user', content: 'the task' };
const say = (content: string): Message => ({ role: 'assistant', content });
const ask = (content: string): Message => ({ role: 'user', content });
const calls = (...ids: string[]): Message => ({
  role: 'assistant',
  content: '',
  tool_calls: ids.map((id) => ({ id, name: 'step', arguments: '{}' })),
});
const result = (id: string): Message => ({
  role: 'tool',
  tool_call_id: id,
  name: 'step',
  content: `r${id}`,
});

describe('should_compress', () => {
  it('is true only above the threshold of a real window', () => {
    expect(should_compress(751, 1_000)).toBe(true);
    expect(should_compress(750, 1_000)).toBe(false);
    expect(should_compress(501, 1_000, 0.5)).toBe(true);
    expect(should_compress(10 ** 9, 0)).toBe(false);
    expect(should_compress(10 ** 9, Number.NaN)).toBe(false);
    expect(should_compress(10 ** 9, Number.POSITIVE_INFINITY)).toBe(false);
  });
});

describe('plan_compression', () => {
  it('keeps the system prompt, the first user message and the recent tail', () => {
    const messages = [system, first, say('a'), ask('b'), say('c'), ask('d'), say('e')];
    expect(plan_compression(messages, 2)).toEqual({ from: 2, to: 5 });
  });

  it('widens the tail back to the assistant message whose results it holds', () => {
    const messages = [
      system,
      first,
      say('a'),
      ask('b'),
      calls('1', '2', '3'),
      result('1'),
      result('2'),
      result('3'),
    ];
    // keep_recent 2 would start the tail at result 2; it starts at the call instead
    expect(plan_compression(messages, 2)).toEqual({ from: 2, to: 4 });
  });

  it('is null when fewer than two messages would go', () => {
    expect(plan_compression([system, first, say('a'), ask('b')], 1)).toBeNull();
    expect(
      plan_compression([system, first, calls('1', '2'), result('1'), result('2')], 1),
    ).toBeNull();
    expect(plan_compression([], 1)).toBeNull();
  });

  it('never splits a tool call from its results, for any history and tail size', () => {
    // a deterministic walk over many shapes of history
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 300; round++) {
      const messages: Message[] = random() < 0.5 ? [system, first] : [first];
      const turns = 1 + Math.floor(random() * 12);
      for (let turn = 0; turn < turns; turn++) {
        if (random() < 0.6) {
          const ids = Array.from(
            { length: 1 + Math.floor(random() * 4) },
            (_, index) => `${turn}_${index}`,
          );
          messages.push(calls(...ids), ...ids.map(result));
        } else {
          messages.push(say(`s${turn}`), ask(`a${turn}`));
        }
      }
      const keep_recent = 1 + Math.floor(random() * 8);
      const plan = plan_compression(messages, keep_recent);
      if (plan === null) continue;
      const summary: Message = { role: 'user', content: 'summary' };
      const compressed = [...messages.slice(0, plan.from), summary, ...messages.slice(plan.to)];
      expect(history_problems(compressed), JSON.stringify({ round, plan })).toEqual([]);
      expect(compressed.slice(0, plan.from)).toContain(first);
      expect(messages.length - plan.to).toBeGreaterThanOrEqual(
        Math.min(keep_recent, messages.length - plan.from),
      );
    }
  });
});

describe('compress_messages', () => {
  const history = (): Message[] => [
    system,
    first,
    say('I will look around'),
    calls('1'),
    result('1'),
    ask('keep going'),
    calls('2', '3'),
    result('2'),
    result('3'),
  ];

  it('replaces the middle with a summary from the same ChatFn, called without tools', async () => {
    const messages = history();
    const before = structuredClone(messages);
    const chat = queued_chat([
      reply('  looked around, ran step 1  ', { usage: { input_tokens: 9, output_tokens: 4 } }),
    ]);
    const done = await compress_messages(messages, chat, { keep_recent: 3 });
    if (!done.ok) throw new Error(done.error);
    expect(done).toMatchObject({ from: 2, to: 6, summary: 'looked around, ran step 1' });
    expect(done.usage).toEqual({ input_tokens: 9, output_tokens: 4 });
    expect(done.summary_message).toEqual({
      role: 'user',
      content: `${SUMMARY_PREFIX}looked around, ran step 1`,
    });
    expect(done.messages).toEqual([system, first, done.summary_message, ...messages.slice(6)]);
    expect(history_problems(done.messages)).toEqual([]);
    expect(messages).toEqual(before);
    const call = chat.calls[0];
    expect(call?.tools).toEqual([]);
    expect(call?.messages[0]?.role).toBe('system');
    const transcript = call?.messages[1]?.content ?? '';
    expect(transcript).toContain('I will look around');
    expect(transcript).toContain('[tool call step] {}');
    expect(transcript).toContain('[tool result step]\nr1');
    expect(transcript).not.toContain('r2');
  });

  it('appends what `carry` returns to the summary message; a throwing carry adds nothing', async () => {
    const seen: number[] = [];
    const carried = await compress_messages(history(), queued_chat([reply('summary')]), {
      keep_recent: 3,
      carry: (messages) => {
        seen.push(messages.length);
        return '<state>kept</state>';
      },
    });
    if (!carried.ok) throw new Error(carried.error);
    expect(seen).toEqual([9]);
    expect(carried.summary).toBe('summary');
    expect(carried.summary_message.content).toBe(`${SUMMARY_PREFIX}summary\n\n<state>kept</state>`);
    const thrown = await compress_messages(history(), queued_chat([reply('summary')]), {
      keep_recent: 3,
      carry: () => {
        throw new Error('broken');
      },
    });
    if (!thrown.ok) throw new Error(thrown.error);
    expect(thrown.summary_message.content).toBe(`${SUMMARY_PREFIX}summary`);
  });

  it('clamps each message and the whole transcript', async () => {
    const messages = [system, first, say('a'.repeat(10_000)), ask('b'), say('c'), ask('d')];
    const chat = queued_chat([reply('short')]);
    await compress_messages(messages, chat, {
      keep_recent: 1,
      max_message_chars: 500,
      max_transcript_chars: 2_000,
    });
    const transcript = chat.calls[0]?.messages[1]?.content ?? '';
    expect(transcript.length).toBeLessThan(2_700);
    expect(transcript).toMatch(/…\[cut \d+ chars\]…/);
  });

  it('fails as data, leaving the history untouched', async () => {
    const messages = history();
    const cases: [Parameters<typeof queued_chat>[0], RegExp][] = [
      [[new Error('boom')], /the summary call failed: boom/],
      [[reply('')], /no text/],
      [[() => ({}) as never], /no text/],
    ];
    for (const [steps, error] of cases) {
      const done = await compress_messages(messages, queued_chat(steps), { keep_recent: 3 });
      expect(done.ok).toBe(false);
      expect(done.messages).toBe(messages);
      if (!done.ok) expect(done.error).toMatch(error);
    }
    const throwing = () => {
      throw new Error('sync');
    };
    const done = await compress_messages(messages, throwing, { keep_recent: 3 });
    expect(done).toMatchObject({ ok: false, error: 'the summary call failed: sync' });
  });

  it('says when there is nothing to compress, without calling the model', async () => {
    const chat = queued_chat([]);
    const done = await compress_messages([system, first, say('hi')], chat);
    expect(done).toMatchObject({ ok: false, error: expect.stringMatching(/nothing to compress/) });
    expect(chat.calls).toHaveLength(0);
  });

  it('fails with error aborted on abort, even when the ChatFn ignores the signal', async () => {
    const controller = new AbortController();
    const polite = queued_chat([(_m, _t, options) => until_abort(options?.signal)]);
    const rude = queued_chat([() => new Promise(() => {})]);
    for (const chat of [polite, rude]) {
      const running = compress_messages(history(), chat, {
        keep_recent: 3,
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), 2);
      expect(await running).toMatchObject({ ok: false, error: 'aborted' });
    }
    const already = await compress_messages(history(), queued_chat([]), {
      keep_recent: 3,
      signal: AbortSignal.abort(),
    });
    expect(already).toMatchObject({ ok: false, error: 'aborted' });
  });

  it('refuses a keep_recent that is not a positive integer', async () => {
    await expect(compress_messages(history(), queued_chat([]), { keep_recent: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});
