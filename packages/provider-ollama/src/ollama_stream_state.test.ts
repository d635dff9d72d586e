import type { ChatDelta } from '@lich/core';
import { ProviderError } from '@lich/providers';
import { thrown } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { OllamaStreamState } from './ollama_stream_state.js';

const context = { provider: 'ollama', model: 'qwen3' };

function run(lines: (object | string)[]) {
  const deltas: ChatDelta[] = [];
  const state = new OllamaStreamState(context, (delta) => deltas.push(delta));
  for (const line of lines) state.push_line(typeof line === 'string' ? line : JSON.stringify(line));
  return { state, deltas };
}

const caught = (action: () => unknown): ProviderError => thrown(action, ProviderError.is_instance);

const line = (message: object, rest: object = {}) => ({
  model: 'qwen3:8b',
  created_at: '2025-05-27T22:54:57Z',
  message: { role: 'assistant', content: '', ...message },
  done: false,
  ...rest,
});

describe('OllamaStreamState', () => {
  it('streams thinking and text, and reads the counts of the last line', () => {
    const { state, deltas } = run([
      line({ thinking: 'hmm' }),
      line({ content: 'Hel' }),
      '',
      line({ content: 'lo' }),
      line({}, { done: true, done_reason: 'stop', prompt_eval_count: 26, eval_count: 9 }),
    ]);
    expect(deltas).toEqual([
      { kind: 'reasoning', text: 'hmm' },
      { kind: 'text', text: 'Hel' },
      { kind: 'text', text: 'lo' },
    ]);
    expect(state.result()).toEqual({
      message: { role: 'assistant', content: 'Hello', reasoning: 'hmm' },
      finish_reason: 'stop',
      usage: { input_tokens: 26, output_tokens: 9 },
      provider: 'ollama',
      model: 'qwen3:8b',
    });
  });

  it('collects parallel tool calls sent in separate lines', () => {
    const { state } = run([
      line({ tool_calls: [{ function: { name: 'weather', arguments: { city: 'Oslo' } } }] }),
      line({ tool_calls: [{ id: 'given', function: { index: 1, name: 'clock', arguments: {} } }] }),
      line({}, { done: true, done_reason: 'stop' }),
    ]);
    const result = state.result();
    expect(result.finish_reason).toBe('tool_calls');
    const calls = result.message.tool_calls ?? [];
    expect(calls.map((call) => [call.name, call.arguments])).toEqual([
      ['weather', '{"city":"Oslo"}'],
      ['clock', '{}'],
    ]);
    expect(calls[0]?.id).toMatch(/^call_/);
    expect(calls[1]?.id).toBe('given');
  });

  it('maps length, and fails clearly on a cut stream, bad JSON, an error line or a nameless call', () => {
    expect(
      run([line({}, { done: true, done_reason: 'length' })]).state.result().finish_reason,
    ).toBe('length');
    expect(caught(() => run([line({ content: 'x' })]).state.result())).toMatchObject({
      kind: 'stream',
      delivered: true,
    });
    expect(caught(() => run(['<html>'])).kind).toBe('parse');
    expect(caught(() => run(['[1]'])).kind).toBe('parse');
    const error_line = caught(() => run([line({ content: 'a' }), { error: 'runner crashed' }]));
    expect(error_line).toMatchObject({ kind: 'stream', retryable: true, delivered: true });
    expect(error_line.message).toContain('runner crashed');
    expect(
      caught(() => run([line({ tool_calls: [{ function: { arguments: {} } }] })])).message,
    ).toContain('no function name');
  });
});
