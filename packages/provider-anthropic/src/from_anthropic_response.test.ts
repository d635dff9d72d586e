import { ProviderError } from '@lich/providers';
import { thrown } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { from_anthropic_response } from './from_anthropic_response.js';
import { read_anthropic_error } from './read_anthropic_error.js';

const context = { provider: 'anthropic', model: 'claude-test' };

const caught = (action: () => unknown): ProviderError => thrown(action, ProviderError.is_instance);

describe('from_anthropic_response', () => {
  it('maps content blocks, stop reason and usage', () => {
    const result = from_anthropic_response(
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-test-1',
        content: [
          { type: 'thinking', thinking: 'plan', signature: 's1' },
          { type: 'text', text: 'Sure.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 3, output_tokens: 4 },
      },
      context,
    );
    expect(result).toEqual({
      message: {
        role: 'assistant',
        content: 'Sure.',
        reasoning: 'plan',
        reasoning_parts: [{ text: 'plan', signature: 's1' }],
        tool_calls: [{ id: 'toolu_1', name: 'read_file', arguments: '{"path":"a.txt"}' }],
      },
      finish_reason: 'tool_calls',
      usage: { input_tokens: 3, output_tokens: 4 },
      provider: 'anthropic',
      model: 'claude-test-1',
    });
  });

  it('maps max_tokens and refusal', () => {
    const cut = from_anthropic_response(
      { content: [{ type: 'text', text: 'a' }], stop_reason: 'max_tokens' },
      context,
    );
    expect(cut.finish_reason).toBe('length');
    const refused = from_anthropic_response({ content: [], stop_reason: 'refusal' }, context);
    expect(refused.finish_reason).toBe('content_filter');
  });

  it('rejects error bodies and bodies without content', () => {
    const error = caught(() =>
      from_anthropic_response(
        { type: 'error', error: { type: 'api_error', message: 'oops' } },
        context,
      ),
    );
    expect(error).toMatchObject({ kind: 'http', code: 'api_error' });
    expect(caught(() => from_anthropic_response({ id: 'x' }, context)).kind).toBe('parse');
    expect(caught(() => from_anthropic_response(null, context)).kind).toBe('parse');
  });
});

describe('read_anthropic_error', () => {
  it('reads the error body, its request id, and text a proxy sent', () => {
    expect(
      read_anthropic_error({
        type: 'error',
        error: { type: 'rate_limit_error', message: 'slow down' },
        request_id: 'req_1',
      }),
    ).toEqual({ provider_message: 'slow down', code: 'rate_limit_error', request_id: 'req_1' });
    expect(read_anthropic_error('<html><body>502 Bad Gateway</body></html>')).toEqual({
      provider_message: '<html><body>502 Bad Gateway</body></html>',
    });
    expect(read_anthropic_error('')).toEqual({});
  });
});
