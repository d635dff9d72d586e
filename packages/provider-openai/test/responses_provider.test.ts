import type { Message } from '@lich/core';
import type { ProviderConfig } from '@lich/providers';
import {
  type ContractConfig,
  picture_conversation,
  provider_contract_suite,
  RESPONSES_FAKE_ENCRYPTED,
  TINY_PNG_BASE64,
  WEATHER_TOOL,
} from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { create_openai_provider, OPENAI_COMPAT_KIND } from '../src/index.js';
import { read_openai_settings } from '../src/openai_settings.js';

const responses = provider_contract_suite({
  format: 'openai',
  kind: OPENAI_COMPAT_KIND,
  create: (config: Partial<ProviderConfig> & ContractConfig) =>
    create_openai_provider({
      kind: OPENAI_COMPAT_KIND,
      model: 'gpt-5-codex',
      api_key: 'sk-test',
      ...config,
      options: { api: 'responses', ...config.options },
    }),
  no_stream_options: { stream: false },
  key_env: 'OPENAI_API_KEY',
});

describe('the OpenAI Responses API (the rest is the contract suite)', () => {
  it('is the default for the model families that want it, on api.openai.com only', () => {
    const api = (model: string, base_url?: string) =>
      read_openai_settings({ kind: OPENAI_COMPAT_KIND, model, base_url }).api;
    expect(api('gpt-5-codex')).toBe('responses');
    expect(api('o3')).toBe('responses');
    expect(api('gpt-4o')).toBe('chat');
    expect(api('gpt-5', 'http://127.0.0.1:8000/v1')).toBe('chat');
  });

  it('posts to /responses with store false, and passes encrypted reasoning back across turns', async () => {
    responses.server.enqueue(
      {
        reasoning: 'Look it up.',
        tool_calls: [
          { name: 'weather', arguments: { city: 'Oslo' } },
          { name: 'weather', arguments: { city: 'Rome' } },
        ],
        usage: { input_tokens: 50, output_tokens: 20, cache_read_tokens: 32, reasoning_tokens: 8 },
      },
      { text: 'Cold and warm.' },
    );
    const history: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'weather?' },
    ];
    const first = await responses.chat(history, { tools: [WEATHER_TOOL] });
    expect(first.request?.path).toBe('/v1/responses');
    expect(first.request?.body).toMatchObject({
      model: 'gpt-5-codex',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'weather?' }] }],
      tools: [{ type: 'function', name: 'weather', parameters: WEATHER_TOOL.parameters }],
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    expect(first.result).toMatchObject({
      finish_reason: 'tool_calls',
      message: { reasoning: 'Look it up.' },
      usage: { input_tokens: 50, output_tokens: 20, cache_read_tokens: 32, reasoning_tokens: 8 },
    });
    const calls = first.result.message.tool_calls ?? [];
    expect(calls.map((call) => JSON.parse(call.arguments))).toEqual([
      { city: 'Oslo' },
      { city: 'Rome' },
    ]);
    history.push(first.result.message);
    for (const call of calls)
      history.push({ role: 'tool', tool_call_id: call.id, content: `${call.id} ok` });
    const second = await responses.chat(history, { tools: [WEATHER_TOOL] });
    const input = (second.request?.body as { input?: unknown[] } | undefined)?.input ?? [];
    expect(input.slice(1)).toEqual([
      {
        type: 'reasoning',
        id: expect.stringMatching(/^rs_/),
        summary: [{ type: 'summary_text', text: 'Look it up.' }],
        encrypted_content: RESPONSES_FAKE_ENCRYPTED,
      },
      {
        type: 'function_call',
        call_id: calls[0]?.id,
        name: 'weather',
        arguments: '{"city":"Oslo"}',
      },
      {
        type: 'function_call',
        call_id: calls[1]?.id,
        name: 'weather',
        arguments: '{"city":"Rome"}',
      },
      { type: 'function_call_output', call_id: calls[0]?.id, output: `${calls[0]?.id} ok` },
      { type: 'function_call_output', call_id: calls[1]?.id, output: `${calls[1]?.id} ok` },
    ]);
    expect(second.result.message.content).toBe('Cold and warm.');
  });
});

describe('pictures', () => {
  it('sends a picture in a user message and in a tool result in the wire shape of its API', async () => {
    responses.server.enqueue({ text: 'a red dot' });
    const { request } = await responses.chat(picture_conversation());
    expect(request?.body).toMatchObject({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'what is wrong here' },
            { type: 'input_image', image_url: `data:image/png;base64,${TINY_PNG_BASE64}` },
          ],
        },
        { type: 'function_call', call_id: 'call_1', name: 'read_file' },
        {
          type: 'function_call_output',
          call_id: 'call_1',
          output: 'a picture\n\n[image: logo.png]',
        },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'The pictures the tool read_file returned:' },
            { type: 'input_image', image_url: `data:image/png;base64,${TINY_PNG_BASE64}` },
          ],
        },
      ],
    });
  });
});
