import type { ChatDelta } from '@lich/core';
import { ProviderError } from '@lich/providers';
import { thrown } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { OpenAiStreamState } from './openai_stream_state.js';

const context = { provider: 'openai_compat', model: 'gpt-test' };

function run(chunks: unknown[]) {
  const deltas: ChatDelta[] = [];
  const state = new OpenAiStreamState(context, (delta) => deltas.push(delta));
  for (const chunk of chunks) {
    state.push({ data: typeof chunk === 'string' ? chunk : JSON.stringify(chunk) });
  }
  return { state, deltas };
}

function delta(value: object, finish_reason: string | null = null) {
  return { id: 'c1', model: 'gpt-test-0613', choices: [{ index: 0, delta: value, finish_reason }] };
}

const caught = (action: () => unknown): ProviderError => thrown(action, ProviderError.is_instance);

describe('OpenAiStreamState', () => {
  it('streams text and reasoning, and reads usage from the last chunk', () => {
    const { state, deltas } = run([
      delta({ role: 'assistant', content: '' }),
      delta({ reasoning_content: 'let me ' }),
      delta({ reasoning: 'think' }),
      delta({ content: 'Hel' }),
      delta({ content: 'lo' }, 'stop'),
      {
        choices: [],
        usage: {
          prompt_tokens: 20,
          completion_tokens: 9,
          prompt_tokens_details: { cached_tokens: 8 },
          completion_tokens_details: { reasoning_tokens: 4 },
        },
      },
      '[DONE]',
    ]);
    expect(deltas).toEqual([
      { kind: 'reasoning', text: 'let me ' },
      { kind: 'reasoning', text: 'think' },
      { kind: 'text', text: 'Hel' },
      { kind: 'text', text: 'lo' },
    ]);
    expect(state.result()).toEqual({
      message: { role: 'assistant', content: 'Hello', reasoning: 'let me think' },
      finish_reason: 'stop',
      usage: { input_tokens: 20, output_tokens: 9, cache_read_tokens: 8, reasoning_tokens: 4 },
      provider: 'openai_compat',
      model: 'gpt-test-0613',
    });
  });

  it('does not double reasoning a server sends under both names', () => {
    const { state } = run([delta({ reasoning_content: 'a', reasoning: 'a' }, 'stop'), '[DONE]']);
    expect(state.result().message.reasoning).toBe('a');
  });

  it('joins parallel tool calls whose arguments arrive in pieces', () => {
    const { state, deltas } = run([
      delta({
        tool_calls: [
          {
            index: 0,
            id: 'call_a',
            type: 'function',
            function: { name: 'weather', arguments: '' },
          },
        ],
      }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
      delta({
        tool_calls: [
          {
            index: 1,
            id: 'call_b',
            type: 'function',
            function: { name: 'time', arguments: '{"tz":' },
          },
        ],
      }),
      delta({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo"}' } }] }),
      delta({ tool_calls: [{ index: 1, function: { arguments: '"CET"}' } }] }, 'tool_calls'),
      '[DONE]',
    ]);
    expect(deltas).toEqual([]);
    const result = state.result();
    expect(result.finish_reason).toBe('tool_calls');
    expect(result.message.tool_calls).toEqual([
      { id: 'call_a', name: 'weather', arguments: '{"city":"Oslo"}' },
      { id: 'call_b', name: 'time', arguments: '{"tz":"CET"}' },
    ]);
    expect(result.message).not.toHaveProperty('reasoning');
  });

  it('copes with servers that omit index or id, repeat the name, or send object arguments', () => {
    const { state } = run([
      delta({ tool_calls: [{ id: 'x1', function: { name: 'a', arguments: '{"n":' } }] }),
      delta({ tool_calls: [{ id: 'x1', function: { name: 'a', arguments: '1}' } }] }),
      delta({ tool_calls: [{ id: 'x2', function: { name: 'b', arguments: { n: 2 } } }] }, 'stop'),
    ]);
    const calls = state.result().message.tool_calls ?? [];
    expect(calls.map((call) => [call.id, call.name, call.arguments])).toEqual([
      ['x1', 'a', '{"n":1}'],
      ['x2', 'b', '{"n":2}'],
    ]);
    const { state: no_id } = run([
      delta({ tool_calls: [{ index: 0, function: { name: 'c' } }] }, 'stop'),
    ]);
    const [call] = no_id.result().message.tool_calls ?? [];
    expect(call?.id).toMatch(/^call_/);
    expect(call?.arguments).toBe('{}');
  });

  it('accepts a stream that ends after a finish reason without [DONE]', () => {
    const { state } = run([delta({ content: 'ok' }, 'stop')]);
    expect(state.result().message.content).toBe('ok');
  });

  it('fails clearly on a stream cut before the end, saying whether text was delivered', () => {
    const { state } = run([delta({ content: 'par' })]);
    const error = caught(() => state.result());
    expect(error.kind).toBe('stream');
    expect(error.delivered).toBe(true);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('openai_compat (gpt-test)');
    expect(error.message).toContain('[DONE]');
    expect(caught(() => run([]).state.result()).delivered).toBe(false);
  });

  it('rejects a chunk that is not JSON', () => {
    const error = caught(() => run([delta({ content: 'a' }), '<html>oops</html>']));
    expect(error.kind).toBe('parse');
    expect(error.delivered).toBe(true);
    expect(error.message).toContain('<html>oops</html>');
    expect(caught(() => run(['42'])).kind).toBe('parse');
  });

  it('turns an error chunk into a ProviderError', () => {
    const with_status = caught(() =>
      run([{ error: { code: 502, message: 'upstream overloaded' } }]),
    );
    expect(with_status).toMatchObject({ kind: 'http', status: 502, retryable: true });
    expect(with_status.provider_message).toBe('upstream overloaded');
    const without = caught(() => run([{ error: { message: 'boom', type: 'server_error' } }]));
    expect(without).toMatchObject({ kind: 'stream', code: 'server_error', retryable: true });
  });

  it('rejects a tool call with no name', () => {
    const { state } = run([
      delta({ tool_calls: [{ index: 0, id: 'c', function: { arguments: '{}' } }] }, 'tool_calls'),
      '[DONE]',
    ]);
    const error = caught(() => state.result());
    expect(error.kind).toBe('parse');
    expect(error.message).toContain('tool call 0 has no function name');
  });
});
