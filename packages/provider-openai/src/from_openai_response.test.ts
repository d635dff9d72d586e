import { ProviderError } from '@lich/providers';
import { thrown } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { from_openai_response } from './from_openai_response.js';

const context = { provider: 'openai_compat', model: 'm' };

const caught = (action: () => unknown): ProviderError => thrown(action, ProviderError.is_instance);

describe('from_openai_response', () => {
  it('maps text, reasoning, tool calls and usage', () => {
    const result = from_openai_response(
      {
        model: 'm-2024',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              reasoning: 'need data',
              tool_calls: [
                { id: 'c1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
                { id: 'c2', type: 'function', function: { name: 'b', arguments: '{}' } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
      },
      context,
    );
    expect(result).toEqual({
      message: {
        role: 'assistant',
        content: '',
        reasoning: 'need data',
        tool_calls: [
          { id: 'c1', name: 'a', arguments: '{"x":1}' },
          { id: 'c2', name: 'b', arguments: '{}' },
        ],
      },
      finish_reason: 'tool_calls',
      usage: { input_tokens: 5, output_tokens: 7 },
      provider: 'openai_compat',
      model: 'm-2024',
    });
  });

  it('maps a length stop and a missing usage', () => {
    const result = from_openai_response(
      { choices: [{ message: { content: 'cut' }, finish_reason: 'length' }] },
      context,
    );
    expect(result.finish_reason).toBe('length');
    expect(result).not.toHaveProperty('usage');
    expect(result.model).toBe('m');
  });

  it('turns an error body in a 200 into an http error', () => {
    const error = caught(() =>
      from_openai_response(
        { error: { message: 'bad model', type: 'invalid_request_error' } },
        context,
      ),
    );
    expect(error).toMatchObject({ kind: 'http', code: 'invalid_request_error' });
    expect(error.message).toContain('bad model');
  });

  it('rejects a body with no choices or a nameless tool call', () => {
    expect(caught(() => from_openai_response({ choices: [] }, context)).kind).toBe('parse');
    expect(caught(() => from_openai_response('<html>', context)).kind).toBe('parse');
    const nameless = {
      choices: [
        { message: { content: '', tool_calls: [{ id: 'c', function: { arguments: '{}' } }] } },
      ],
    };
    expect(caught(() => from_openai_response(nameless, context)).kind).toBe('parse');
  });
});
