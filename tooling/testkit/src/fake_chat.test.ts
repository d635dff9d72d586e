import type { ChatDelta, Message } from '@lich/core';
import { describe, expect, it } from 'vitest';
import { fake_chat, to_chat_result } from './fake_chat.js';

const USER: Message[] = [{ role: 'user', content: 'hi' }];

describe('fake_chat', () => {
  it('answers in queue order and records deep copies of each call', async () => {
    const chat = fake_chat([
      'plain text',
      { text: '', tool_calls: [{ name: 'read_file', arguments: { path: 'a' } }] },
      { message: { role: 'assistant', content: 'full' }, finish_reason: 'length' },
    ]);
    const history: Message[] = structuredClone(USER);
    const first = await chat(history, [], { max_tokens: 9 });
    history.push(first.message);
    (history[0] as { content: string }).content = 'changed later';
    const second = await chat(history, [{ name: 'read_file', description: 'd', parameters: {} }]);
    const third = await chat(history, []);
    expect(first).toEqual({
      message: { role: 'assistant', content: 'plain text' },
      finish_reason: 'stop',
    });
    expect(second.message.tool_calls).toEqual([
      { id: 'call_1_0', name: 'read_file', arguments: '{"path":"a"}' },
    ]);
    expect(second.finish_reason).toBe('tool_calls');
    expect(third.finish_reason).toBe('length');
    expect(chat.calls).toHaveLength(3);
    expect(chat.calls[0]?.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(chat.calls[0]?.max_tokens).toBe(9);
    expect(chat.calls[1]?.tools.map((tool) => tool.name)).toEqual(['read_file']);
    expect(chat.pending).toBe(0);
  });

  it('streams reasoning then text through on_delta, in pieces', async () => {
    const chat = fake_chat([{ text: 'Hello there', reasoning: 'hmm' }], { delta_chars: 3 });
    const deltas: ChatDelta[] = [];
    const result = await chat(USER, [], { on_delta: (delta) => deltas.push(delta) });
    expect(deltas[0]).toEqual({ kind: 'reasoning', text: 'hmm' });
    expect(deltas.filter((delta) => delta.kind === 'text').map((delta) => delta.text)).toEqual([
      'Hel',
      'lo ',
      'the',
      're',
    ]);
    expect(result.message.reasoning).toBe('hmm');
    expect(chat.calls[0]?.streamed).toBe(true);
  });

  it('rejects with queued errors, breaks after partial text, and when the script runs out', async () => {
    const failure = new Error('HTTP 500');
    const broken = new Error('stream cut');
    const chat = fake_chat([failure, { partial_text: 'Part', error: broken }]);
    await expect(chat(USER, [])).rejects.toBe(failure);
    const deltas: string[] = [];
    await expect(chat(USER, [], { on_delta: (delta) => deltas.push(delta.text) })).rejects.toBe(
      broken,
    );
    expect(deltas.join('')).toBe('Part');
    await expect(chat(USER, [])).rejects.toThrow(/script ran out \(call #3\)/);
  });

  it('computes answers from a function and accepts more steps later', async () => {
    const chat = fake_chat();
    chat.push((call) => `you said ${call.messages.at(-1)?.content}`);
    expect((await chat(USER, [])).message.content).toBe('you said hi');
  });

  it('rejects at once when aborted, before or during its delay', async () => {
    const chat = fake_chat(['a', 'b'], { delay_ms: 5_000 });
    const aborted = new AbortController();
    aborted.abort(new Error('stop'));
    await expect(chat(USER, [], { signal: aborted.signal })).rejects.toThrow('stop');
    const later = new AbortController();
    const started = performance.now();
    const pending = chat(USER, [], { signal: later.signal });
    setTimeout(() => later.abort(), 20);
    await expect(pending).rejects.toThrow(/aborted/);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(chat.pending).toBe(2);
  });

  it('to_chat_result fills provider and model defaults', () => {
    expect(
      to_chat_result({ text: 'x', usage: { input_tokens: 1, output_tokens: 2 } }, 0, {
        provider: 'p',
        model: 'm',
      }),
    ).toEqual({
      message: { role: 'assistant', content: 'x' },
      finish_reason: 'stop',
      usage: { input_tokens: 1, output_tokens: 2 },
      provider: 'p',
      model: 'm',
    });
  });
});
