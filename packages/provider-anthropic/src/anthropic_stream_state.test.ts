import type { ChatDelta } from '@lich/core';
import { ProviderError } from '@lich/providers';
import { thrown } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { AnthropicStreamState } from './anthropic_stream_state.js';

const context = { provider: 'anthropic', model: 'claude-test' };

type Event = [string, object | string];

function run(events: Event[]) {
  const deltas: ChatDelta[] = [];
  const state = new AnthropicStreamState(context, (delta) => deltas.push(delta));
  for (const [name, data] of events) {
    state.push({
      event: name,
      data: typeof data === 'string' ? data : JSON.stringify({ type: name, ...data }),
    });
  }
  return { state, deltas };
}

const caught = (action: () => unknown): ProviderError => thrown(action, ProviderError.is_instance);

const start: Event = [
  'message_start',
  {
    message: {
      id: 'msg_1',
      model: 'claude-test-1',
      content: [],
      usage: {
        input_tokens: 10,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 5,
        output_tokens: 1,
      },
    },
  },
];

describe('AnthropicStreamState', () => {
  it('streams thinking with its signature, text and tool input in pieces', () => {
    const { state, deltas } = run([
      start,
      [
        'content_block_start',
        { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      ],
      ['content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'hmm ' } }],
      ['content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'ok' } }],
      ['content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'SIG' } }],
      ['content_block_stop', { index: 0 }],
      [
        'content_block_start',
        { index: 1, content_block: { type: 'redacted_thinking', data: 'R' } },
      ],
      ['content_block_stop', { index: 1 }],
      ['ping', {}],
      ['content_block_start', { index: 2, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { index: 2, delta: { type: 'text_delta', text: 'Checking.' } }],
      ['content_block_stop', { index: 2 }],
      [
        'content_block_start',
        {
          index: 3,
          content_block: { type: 'tool_use', id: 'toolu_a', name: 'weather', input: {} },
        },
      ],
      ['content_block_delta', { index: 3, delta: { type: 'input_json_delta', partial_json: '' } }],
      [
        'content_block_delta',
        { index: 3, delta: { type: 'input_json_delta', partial_json: '{"city": "Os' } },
      ],
      [
        'content_block_delta',
        { index: 3, delta: { type: 'input_json_delta', partial_json: 'lo"}' } },
      ],
      ['content_block_stop', { index: 3 }],
      [
        'content_block_start',
        { index: 4, content_block: { type: 'tool_use', id: 'toolu_b', name: 'clock', input: {} } },
      ],
      ['content_block_stop', { index: 4 }],
      [
        'message_delta',
        { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 42 } },
      ],
      ['message_stop', {}],
    ]);
    expect(deltas).toEqual([
      { kind: 'reasoning', text: 'hmm ' },
      { kind: 'reasoning', text: 'ok' },
      { kind: 'text', text: 'Checking.' },
    ]);
    expect(state.result()).toEqual({
      message: {
        role: 'assistant',
        content: 'Checking.',
        reasoning: 'hmm ok',
        reasoning_parts: [
          { text: 'hmm ok', signature: 'SIG' },
          { text: '', redacted: 'R' },
        ],
        tool_calls: [
          { id: 'toolu_a', name: 'weather', arguments: '{"city": "Oslo"}' },
          { id: 'toolu_b', name: 'clock', arguments: '{}' },
        ],
      },
      finish_reason: 'tool_calls',
      usage: {
        input_tokens: 115,
        output_tokens: 42,
        cache_read_tokens: 100,
        cache_write_tokens: 5,
      },
      provider: 'anthropic',
      model: 'claude-test-1',
    });
  });

  it('ignores unknown events and block types', () => {
    const { state } = run([
      start,
      [
        'content_block_start',
        { index: 0, content_block: { type: 'server_tool_use', id: 's', name: 'web_search' } },
      ],
      [
        'content_block_delta',
        { index: 0, delta: { type: 'input_json_delta', partial_json: '{}' } },
      ],
      ['something_new', {}],
      ['content_block_start', { index: 1, content_block: { type: 'text', text: 'hi' } }],
      ['message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }],
      ['message_stop', {}],
    ]);
    expect(state.result()).toMatchObject({ message: { content: 'hi' }, finish_reason: 'stop' });
  });

  it('turns an error event after the 200 into a retryable error', () => {
    const error = caught(() =>
      run([
        start,
        ['content_block_start', { index: 0, content_block: { type: 'text', text: '' } }],
        ['content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi' } }],
        ['error', { error: { type: 'overloaded_error', message: 'Overloaded' } }],
      ]),
    );
    expect(error).toMatchObject({
      kind: 'http',
      status: 529,
      code: 'overloaded_error',
      retryable: true,
      delivered: true,
    });
    expect(error.message).toContain('Overloaded');
    const fatal = caught(() =>
      run([['error', { error: { type: 'invalid_request_error', message: 'no' } }]]),
    );
    expect(fatal).toMatchObject({ retryable: false, delivered: false });
  });

  it('fails clearly on a cut stream, bad JSON, a stray delta or a nameless tool', () => {
    const cut = run([
      start,
      ['content_block_start', { index: 0, content_block: { type: 'text', text: 'x' } }],
    ]);
    expect(caught(() => cut.state.result())).toMatchObject({ kind: 'stream', delivered: true });
    expect(caught(() => run([['message_start', '{not json']])).kind).toBe('parse');
    expect(
      caught(() =>
        run([['content_block_delta', { index: 3, delta: { type: 'text_delta', text: 'x' } }]]),
      ).kind,
    ).toBe('parse');
    const nameless = run([
      start,
      [
        'content_block_start',
        { index: 0, content_block: { type: 'tool_use', id: 't', input: {} } },
      ],
      ['message_delta', { delta: { stop_reason: 'tool_use' } }],
      ['message_stop', {}],
    ]);
    expect(caught(() => nameless.state.result()).message).toContain('has no name');
  });
});
