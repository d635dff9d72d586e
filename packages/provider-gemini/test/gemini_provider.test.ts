import type { Message } from '@lich/core';
import type { ProviderConfig } from '@lich/providers';
import {
  type ContractConfig,
  GEMINI_FAKE_SIGNATURE,
  picture_conversation,
  provider_contract_suite,
  TINY_PNG_BASE64,
  WEATHER_TOOL,
} from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { create_gemini_provider, GEMINI_KIND } from '../src/index.js';

const gemini = provider_contract_suite({
  format: 'gemini',
  kind: GEMINI_KIND,
  create: (config: Partial<ProviderConfig> & ContractConfig) =>
    create_gemini_provider({
      kind: GEMINI_KIND,
      model: 'gemini-2.5-flash',
      api_key: 'g-test',
      ...config,
    }),
  no_stream_options: { stream: false },
  key_env: 'GEMINI_API_KEY or GOOGLE_API_KEY',
});

describe('create_gemini_provider: the Gemini mapping (the rest is the contract suite)', () => {
  it('streams from the model URL with the key header, and sends the mapped request', async () => {
    gemini.server.enqueue({ text: 'Hi!', usage: { input_tokens: 12, output_tokens: 3 } });
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello' },
    ];
    const { result, request } = await gemini.chat(messages, {
      tools: [WEATHER_TOOL],
      max_tokens: 100,
      config: { temperature: 0.2 } as Partial<ProviderConfig & ContractConfig>,
    });
    expect(request?.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    expect(request?.headers['x-goog-api-key']).toBe('g-test');
    expect(request?.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'hello' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'weather',
              description: 'Current weather',
              parameters: {
                type: 'object',
                properties: { city: { type: 'string' } },
                required: ['city'],
              },
            },
          ],
        },
      ],
      generationConfig: { maxOutputTokens: 100, temperature: 0.2 },
    });
    expect(result).toMatchObject({
      message: { content: 'Hi!' },
      usage: { input_tokens: 12, output_tokens: 3 },
      model: 'gemini-2.5-flash',
    });
  });

  it('sends a tool-using history back with its thought signature and function responses', async () => {
    gemini.server.enqueue(
      {
        reasoning: 'Check both.',
        tool_calls: [
          { name: 'weather', arguments: { city: 'Oslo' } },
          { name: 'weather', arguments: { city: 'Rome' } },
        ],
      },
      { text: 'Cold and warm.' },
    );
    const history: Message[] = [{ role: 'user', content: 'weather?' }];
    const first = await gemini.chat(history, {
      tools: [WEATHER_TOOL],
      config: { options: { thinking: { thinkingBudget: 512 } } } as Partial<
        ProviderConfig & ContractConfig
      >,
    });
    expect(first.request?.body).toMatchObject({
      generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 512 } },
    });
    const calls = first.result.message.tool_calls ?? [];
    expect(first.result.message.reasoning_parts).toEqual([
      { text: 'Check both.' },
      { text: '', signature: GEMINI_FAKE_SIGNATURE },
    ]);
    history.push(first.result.message);
    history.push({ role: 'tool', tool_call_id: calls[0]?.id ?? '', content: '-3 °C' });
    history.push({
      role: 'tool',
      tool_call_id: calls[1]?.id ?? '',
      content: 'no data',
      is_error: true,
    });
    const second = await gemini.chat(history, { tools: [WEATHER_TOOL] });
    expect((second.request?.body as { contents?: unknown[] } | undefined)?.contents).toEqual([
      { role: 'user', parts: [{ text: 'weather?' }] },
      {
        role: 'model',
        parts: [
          { text: 'Check both.', thought: true },
          {
            functionCall: { name: 'weather', args: { city: 'Oslo' } },
            thoughtSignature: GEMINI_FAKE_SIGNATURE,
          },
          { functionCall: { name: 'weather', args: { city: 'Rome' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'weather', response: { result: '-3 °C' } } },
          { functionResponse: { name: 'weather', response: { error: 'no data' } } },
        ],
      },
    ]);
    expect(second.result.message.content).toBe('Cold and warm.');
  });

  it('uses generateContent when it does not stream, and declares the used tools on a grace call', async () => {
    gemini.server.enqueue({ text: 'done' });
    const history: Message[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', name: 'weather', arguments: '{}' }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ];
    const { request } = await gemini.chat(history, {
      config: { options: { stream: false } } as Partial<ProviderConfig & ContractConfig>,
    });
    expect(request?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(request?.body).toMatchObject({
      tools: [{ functionDeclarations: [{ name: 'weather' }] }],
      toolConfig: { functionCallingConfig: { mode: 'NONE' } },
    });
  });

  it('reads cached and thinking tokens, maps safety to content_filter and a blocked prompt to an error', async () => {
    gemini.server.enqueue({
      text: 'ok',
      usage: { input_tokens: 100, output_tokens: 30, cache_read_tokens: 64, reasoning_tokens: 10 },
    });
    expect((await gemini.chat()).result.usage).toEqual({
      input_tokens: 100,
      output_tokens: 30,
      cache_read_tokens: 64,
      reasoning_tokens: 10,
    });
    gemini.server.enqueue({ text: 'I cannot', finish_reason: 'content_filter' });
    expect((await gemini.chat()).result.finish_reason).toBe('content_filter');
    gemini.server.enqueue({
      kind: 'raw',
      chunks: ['data: {"promptFeedback":{"blockReason":"SAFETY"}}\n\n'],
    });
    const { error } = await gemini.failure();
    expect(error).toMatchObject({ kind: 'http', code: 'SAFETY', retryable: false });
  });

  it("maps the API's error shapes: quota, bad request, an invalid key naming the variable", async () => {
    gemini.server.enqueue({ kind: 'status', status: 429, message: 'Resource has been exhausted' });
    expect((await gemini.failure()).error).toMatchObject({
      status: 429,
      code: 'RESOURCE_EXHAUSTED',
      retryable: true,
    });
    // a quota's 429 says how long to wait in a RetryInfo detail, not in a header
    gemini.server.enqueue({
      kind: 'status',
      status: 429,
      body: {
        error: {
          code: 429,
          message: 'You exceeded your current quota.',
          status: 'RESOURCE_EXHAUSTED',
          details: [
            { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [] },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '37.5s' },
          ],
        },
      },
    });
    expect((await gemini.failure()).error).toMatchObject({
      status: 429,
      retryable: true,
      retry_after_ms: 37_500,
    });
    gemini.server.enqueue({ kind: 'status', status: 400, message: 'Invalid value at contents' });
    expect((await gemini.failure()).error).toMatchObject({
      status: 400,
      code: 'INVALID_ARGUMENT',
      retryable: false,
    });
    gemini.server.enqueue({
      kind: 'status',
      status: 400,
      body: {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [
            { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' },
          ],
        },
      },
    });
    const { error } = await gemini.failure();
    expect(error.code).toBe('API_KEY_INVALID');
    expect(error.message).toContain('(set GEMINI_API_KEY or GOOGLE_API_KEY)');
    gemini.server.enqueue({ kind: 'status', status: 403 });
    const named = await gemini.failure(undefined, {
      config: { api_key_env: 'MY_GEMINI_KEY' } as Partial<ProviderConfig & ContractConfig>,
    });
    expect(named.error.message).toContain('(set MY_GEMINI_KEY)');
  });
});

describe('pictures', () => {
  it('sends a picture in a user message and in a tool result in the wire shape of its API', async () => {
    gemini.server.enqueue({ text: 'a red dot' });
    const { request } = await gemini.chat(picture_conversation());
    expect(request?.body).toMatchObject({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'what is wrong here' },
            { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } },
          ],
        },
        { role: 'model', parts: [{ functionCall: { name: 'read_file' } }] },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'read_file', response: { result: 'a picture' } } },
            { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } },
          ],
        },
      ],
    });
  });
});
