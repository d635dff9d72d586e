import type { Message } from '@lich/core';
import type { ProviderConfig } from '@lich/providers';
import {
  BEDROCK_FAKE_SIGNATURE,
  type ContractConfig,
  event_stream_message,
  picture_conversation,
  provider_contract_suite,
  TINY_PNG_BASE64,
  WEATHER_TOOL,
} from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { BEDROCK_KIND, create_bedrock_provider, sign_sigv4 } from '../src/index.js';

const CREDENTIALS = { access_key_id: 'AKIDTEST', secret_access_key: 'secret-test' };
type Config = Partial<ProviderConfig & ContractConfig>;

const bedrock = provider_contract_suite({
  format: 'bedrock',
  kind: BEDROCK_KIND,
  create: (config: Partial<ProviderConfig> & ContractConfig) =>
    create_bedrock_provider({
      kind: BEDROCK_KIND,
      model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
      ...config,
      options: { credentials: CREDENTIALS, region: 'eu-west-1', ...config.options },
    }),
  no_stream_options: { stream: false },
  key_env: 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
});

describe('create_bedrock_provider: the Converse mapping (the rest is the contract suite)', () => {
  it('signs each request with SigV4 over the exact body, and sends the Converse shape', async () => {
    bedrock.server.enqueue({ text: 'Hi!', usage: { input_tokens: 11, output_tokens: 2 } });
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello' },
    ];
    const { result, request } = await bedrock.chat(messages, {
      tools: [WEATHER_TOOL],
      max_tokens: 64,
    });
    expect(request?.path).toBe(
      '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream',
    );
    expect(request?.body).toEqual({
      messages: [{ role: 'user', content: [{ text: 'hello' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 64 },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'weather',
              description: 'Current weather',
              inputSchema: { json: WEATHER_TOOL.parameters },
            },
          },
        ],
      },
    });
    const headers = request?.headers ?? {};
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    // the same signature made again over what the server received
    const again = await sign_sigv4(
      {
        method: 'POST',
        url: `${bedrock.server.url}${request?.path}`,
        headers: { accept: headers.accept ?? '', 'content-type': headers['content-type'] ?? '' },
        body: request?.raw_body ?? '',
      },
      {
        credentials: CREDENTIALS,
        region: 'eu-west-1',
        service: 'bedrock',
        now: new Date(
          (headers['x-amz-date'] ?? '').replace(
            /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/,
            '$1-$2-$3T$4:$5:$6Z',
          ),
        ),
      },
    );
    expect(again.authorization).toBe(headers.authorization);
    expect(result).toMatchObject({
      message: { content: 'Hi!' },
      usage: { input_tokens: 11, output_tokens: 2 },
    });
  });

  it('sends reasoning back with its signature, tool results as toolResult blocks', async () => {
    bedrock.server.enqueue(
      {
        reasoning: 'Both cities.',
        tool_calls: [
          { name: 'weather', arguments: { city: 'Oslo' } },
          { name: 'weather', arguments: { city: 'Rome' } },
        ],
      },
      { text: 'Done.' },
    );
    const history: Message[] = [{ role: 'user', content: 'weather?' }];
    const first = await bedrock.chat(history, { tools: [WEATHER_TOOL] });
    expect(first.result.message.reasoning_parts).toEqual([
      { text: 'Both cities.', signature: BEDROCK_FAKE_SIGNATURE },
    ]);
    const calls = first.result.message.tool_calls ?? [];
    history.push(first.result.message);
    history.push({ role: 'tool', tool_call_id: calls[0]?.id ?? '', content: '-3 °C' });
    history.push({
      role: 'tool',
      tool_call_id: calls[1]?.id ?? '',
      content: 'down',
      is_error: true,
    });
    const second = await bedrock.chat(history, { tools: [WEATHER_TOOL] });
    expect((second.request?.body as { messages?: unknown[] } | undefined)?.messages).toEqual([
      { role: 'user', content: [{ text: 'weather?' }] },
      {
        role: 'assistant',
        content: [
          {
            reasoningContent: {
              reasoningText: { text: 'Both cities.', signature: BEDROCK_FAKE_SIGNATURE },
            },
          },
          { toolUse: { toolUseId: calls[0]?.id, name: 'weather', input: { city: 'Oslo' } } },
          { toolUse: { toolUseId: calls[1]?.id, name: 'weather', input: { city: 'Rome' } } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: calls[0]?.id, content: [{ text: '-3 °C' }] } },
          { toolResult: { toolUseId: calls[1]?.id, content: [{ text: 'down' }], status: 'error' } },
        ],
      },
    ]);
  });

  it('maps throttling to a retryable 429, in the stream and before it, and a bad request to a 400', async () => {
    bedrock.server.enqueue({ kind: 'status', status: 429, message: 'Too many requests' });
    expect((await bedrock.failure()).error).toMatchObject({
      status: 429,
      code: 'ThrottlingException',
      retryable: true,
    });
    bedrock.server.enqueue({
      kind: 'raw',
      chunks: [
        event_stream_message(
          { ':exception-type': 'throttlingException', ':message-type': 'exception' },
          { message: 'slow down' },
        ),
      ],
    });
    expect((await bedrock.failure()).error).toMatchObject({
      status: 429,
      code: 'throttlingException',
      provider_message: 'slow down',
      retryable: true,
    });
    bedrock.server.enqueue({ kind: 'status', status: 400, message: 'Malformed input' });
    expect((await bedrock.failure()).error).toMatchObject({
      status: 400,
      code: 'ValidationException',
      retryable: false,
    });
  });

  it('rejects a damaged event stream, and says which variables to set when there are no credentials', async () => {
    const good = event_stream_message(
      { ':event-type': 'messageStart', ':message-type': 'event' },
      {},
    );
    good.writeUInt8((good.at(-1) ?? 0) ^ 0xff, good.length - 1);
    bedrock.server.enqueue({ kind: 'raw', chunks: [good] });
    expect((await bedrock.failure()).error.kind).toBe('parse');
    const before = bedrock.server.requests.length;
    const provider = create_bedrock_provider({
      kind: BEDROCK_KIND,
      model: 'm',
      base_url: bedrock.server.base_url,
    });
    const saved = { ...process.env };
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_BEARER_TOKEN_BEDROCK']) {
      delete process.env[name];
    }
    process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/credentials';
    try {
      const error = await provider
        .chat([{ role: 'user', content: 'hi' }], [])
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ kind: 'config' });
      expect((error as Error).message).toContain('AWS_ACCESS_KEY_ID');
    } finally {
      process.env = saved;
    }
    expect(bedrock.server.requests.length).toBe(before);
  });

  it('uses /converse when it does not stream, and a bearer token when given an API key', async () => {
    bedrock.server.enqueue({ text: 'whole' });
    const { request, result } = await bedrock.chat(undefined, {
      config: { api_key: 'bedrock-api-key', options: { stream: false } } as Config,
    });
    expect(request?.path).toMatch(/\/converse$/);
    expect(request?.headers.authorization).toBe('Bearer bedrock-api-key');
    expect(result.message.content).toBe('whole');
  });

  it('refuses a region that would change the host the signed request goes to', () => {
    for (const region of ['evil.example#', 'x.evil.example/', 'us-east-1.evil.example?']) {
      expect(() =>
        create_bedrock_provider({ kind: BEDROCK_KIND, model: 'm', options: { region } }),
      ).toThrow(/options\.region must be a region name/);
    }
    expect(() =>
      create_bedrock_provider({ kind: BEDROCK_KIND, model: 'm', options: { region: 'eu-west-3' } }),
    ).not.toThrow();
  });
});

describe('pictures', () => {
  it('sends a picture in a user message and in a tool result in the wire shape of its API', async () => {
    bedrock.server.enqueue({ text: 'a red dot' });
    const { request } = await bedrock.chat(picture_conversation());
    expect(request?.body).toMatchObject({
      messages: [
        {
          role: 'user',
          content: [
            { text: 'what is wrong here' },
            { image: { format: 'png', source: { bytes: TINY_PNG_BASE64 } } },
          ],
        },
        { role: 'assistant', content: [{ toolUse: { toolUseId: 'call_1', name: 'read_file' } }] },
        {
          role: 'user',
          content: [
            {
              toolResult: {
                toolUseId: 'call_1',
                content: [
                  { text: 'a picture' },
                  { image: { format: 'png', source: { bytes: TINY_PNG_BASE64 } } },
                ],
              },
            },
          ],
        },
      ],
    });
  });
});
