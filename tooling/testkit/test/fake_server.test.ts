import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeServer,
  fixture_path,
  start_anthropic_server,
  start_fake_server,
  start_ollama_server,
  start_openai_server,
  unused_port_url,
} from '../src/index.js';
import { parse_sse_text, post } from './helpers.js';

const servers: FakeServer[] = [];
async function track(server: Promise<FakeServer>): Promise<FakeServer> {
  const started = await server;
  servers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

// biome-ignore lint/suspicious/noExplicitAny: the tests read loosely typed wire JSON
type Json = Record<string, any>;

const TOOL_ARGS = { city: 'Paris', unit: 'celsius' };

describe('openai format', () => {
  it('streams reasoning, text and split tool calls, then usage and [DONE]', async () => {
    const server = await track(
      start_openai_server({
        script: [
          {
            reasoning: 'Think first.',
            text: 'Héllo wörld, 🙂 here.',
            tool_calls: [
              { id: 'call_a', name: 'get_weather', arguments: TOOL_ARGS },
              { name: 'get_time', arguments: '{"zone":"UTC"}' },
            ],
            usage: { input_tokens: 11, output_tokens: 22, cache_read_tokens: 3 },
          },
        ],
      }),
    );
    const response = await post(`${server.base_url}/chat/completions`, {
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('x-request-id')).toBe('req_openai_1');
    const events = parse_sse_text(await response.text());
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as Json);
    expect(chunks[0]?.choices[0].delta.role).toBe('assistant');
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.every((chunk) => chunk.model === 'gpt-test')).toBe(true);
    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice: Json) => choice.delta));
    const text = deltas.map((delta) => delta.content ?? '').join('');
    const reasoning = deltas.map((delta) => delta.reasoning_content ?? '').join('');
    expect(text).toBe('Héllo wörld, 🙂 here.');
    expect(reasoning).toBe('Think first.');
    expect(deltas.filter((delta) => delta.content).length).toBeGreaterThan(1);
    const calls: Json[] = [];
    for (const delta of deltas) {
      for (const part of delta.tool_calls ?? []) {
        calls[part.index] ??= { id: '', name: '', arguments: '', pieces: 0 };
        const call = calls[part.index] as Json;
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name = part.function.name;
        if (part.function?.arguments) {
          call.arguments += part.function.arguments;
          call.pieces += 1;
        }
      }
    }
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ id: 'call_a', name: 'get_weather' });
    expect(JSON.parse(calls[0]?.arguments)).toEqual(TOOL_ARGS);
    expect(calls[0]?.pieces).toBe(3);
    expect(calls[1]?.id).toMatch(/^call_fake/);
    expect(calls[1]?.arguments).toBe('{"zone":"UTC"}');
    const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason);
    expect(finish?.choices[0].finish_reason).toBe('tool_calls');
    const usage_chunk = chunks.at(-1);
    expect(usage_chunk?.choices).toEqual([]);
    expect(usage_chunk?.usage).toMatchObject({
      prompt_tokens: 11,
      completion_tokens: 22,
      total_tokens: 33,
      prompt_tokens_details: { cached_tokens: 3 },
    });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('sends no usage chunk unless include_usage, and can name reasoning `reasoning`', async () => {
    const server = await track(
      start_openai_server({
        reasoning_field: 'reasoning',
        script: [{ text: 'ok', reasoning: 'r' }],
      }),
    );
    const response = await post(`${server.base_url}/chat/completions`, {
      model: 'm',
      stream: true,
    });
    const chunks = parse_sse_text(await response.text())
      .slice(0, -1)
      .map((event) => JSON.parse(event.data) as Json);
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
    expect(chunks.some((chunk) => chunk.choices[0]?.delta.reasoning === 'r')).toBe(true);
    expect(chunks.at(-1)?.choices[0].finish_reason).toBe('stop');
  });

  it('answers a chat.completion object when not streaming', async () => {
    const server = await track(
      start_openai_server({
        script: [
          { tool_calls: [{ id: 'call_1', name: 'f', arguments: { a: 1 } }], reasoning: 'x' },
        ],
      }),
    );
    const body = (await (
      await post(`${server.base_url}/chat/completions`, { model: 'm', messages: [] })
    ).json()) as Json;
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0].message).toMatchObject({
      role: 'assistant',
      content: null,
      reasoning_content: 'x',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
      ],
    });
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('sends a mid-stream error object and no [DONE]', async () => {
    const server = await track(
      start_openai_server({ script: [{ text: 'part', error_event: { message: 'boom' } }] }),
    );
    const events = parse_sse_text(
      await (await post(`${server.base_url}/chat/completions`, { stream: true })).text(),
    );
    expect(JSON.parse(events.at(-1)?.data ?? '{}')).toEqual({
      error: { message: 'boom', type: 'server_error', param: null, code: null },
    });
    expect(events.some((event) => event.data === '[DONE]')).toBe(false);
  });

  it('can end a stream without its terminal chunks', async () => {
    const server = await track(
      start_openai_server({ script: [{ text: 'cut', unterminated: true }] }),
    );
    const text = await (await post(`${server.base_url}/chat/completions`, { stream: true })).text();
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain('finish_reason":"stop');
  });
});

describe('anthropic format', () => {
  it('streams the documented event sequence with thinking, text and tool use', async () => {
    const server = await track(
      start_anthropic_server({
        script: [
          {
            reasoning: 'Let me think.',
            reasoning_signature: 'sig-1',
            text: 'Checking.',
            tool_calls: [{ name: 'get_weather', arguments: TOOL_ARGS }],
            usage: {
              input_tokens: 40,
              output_tokens: 9,
              cache_read_tokens: 30,
              cache_write_tokens: 5,
            },
          },
        ],
      }),
    );
    const response = await post(`${server.base_url}/v1/messages`, {
      model: 'claude-test',
      stream: true,
      max_tokens: 100,
      messages: [],
    });
    expect(response.headers.get('request-id')).toBe('req_anthropic_1');
    const events = parse_sse_text(await response.text());
    for (const event of events) expect((JSON.parse(event.data) as Json).type).toBe(event.event);
    const names = events.map((event) => event.event);
    expect(names.slice(0, 3)).toEqual(['message_start', 'ping', 'content_block_start']);
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
    const data = events.map((event) => JSON.parse(event.data) as Json);
    expect(data[0]?.message).toMatchObject({
      model: 'claude-test',
      role: 'assistant',
      content: [],
      usage: { input_tokens: 40, cache_read_input_tokens: 30, cache_creation_input_tokens: 5 },
    });
    const starts = data.filter((item) => item.type === 'content_block_start');
    expect(starts.map((item) => item.content_block.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(starts.map((item) => item.index)).toEqual([0, 1, 2]);
    expect(starts[2]?.content_block).toMatchObject({ name: 'get_weather', input: {} });
    expect(starts[2]?.content_block.id).toMatch(/^toolu_/);
    const deltas = data.filter((item) => item.type === 'content_block_delta');
    const of = (type: string, field: string) =>
      deltas
        .filter((item) => item.delta.type === type)
        .map((item) => item.delta[field])
        .join('');
    expect(of('thinking_delta', 'thinking')).toBe('Let me think.');
    expect(of('signature_delta', 'signature')).toBe('sig-1');
    expect(of('text_delta', 'text')).toBe('Checking.');
    expect(JSON.parse(of('input_json_delta', 'partial_json'))).toEqual(TOOL_ARGS);
    const message_delta = data.at(-2);
    expect(message_delta?.delta.stop_reason).toBe('tool_use');
    expect(message_delta?.usage.output_tokens).toBe(9);
  });

  it('sends an `error` event after a 200', async () => {
    const server = await track(
      start_anthropic_server({
        script: [{ text: 'Hello', error_event: { message: 'Overloaded' } }],
      }),
    );
    const response = await post(`${server.base_url}/v1/messages`, { stream: true });
    expect(response.status).toBe(200);
    const events = parse_sse_text(await response.text());
    expect(events.at(-1)).toEqual({
      event: 'error',
      data: JSON.stringify({
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
      }),
    });
  });

  it('answers a message object when not streaming', async () => {
    const server = await track(
      start_anthropic_server({
        script: [
          {
            reasoning: 'hmm',
            redacted_reasoning: 'opaque',
            text: 'Hi',
            finish_reason: 'length',
          },
        ],
      }),
    );
    const body = (await (
      await post(`${server.base_url}/v1/messages`, { model: 'c', messages: [] })
    ).json()) as Json;
    expect(body).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'max_tokens' });
    expect(body.content.map((block: Json) => block.type)).toEqual([
      'thinking',
      'redacted_thinking',
      'text',
    ]);
    expect(body.content[0].signature).toBeTypeOf('string');
  });
});

describe('ollama format', () => {
  it('streams NDJSON by default and ends with done: true and counts', async () => {
    const server = await track(
      start_ollama_server({
        script: [
          {
            reasoning: 'mull',
            text: 'Answer text',
            tool_calls: [{ name: 'f', arguments: '{"x": 1}' }],
            usage: { input_tokens: 7, output_tokens: 8 },
          },
        ],
      }),
    );
    const response = await post(`${server.base_url}/api/chat`, { model: 'llama', messages: [] });
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await response.text())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Json);
    expect(lines.map((line) => line.message.thinking ?? '').join('')).toBe('mull');
    expect(lines.map((line) => line.message.content).join('')).toBe('Answer text');
    const with_calls = lines.filter((line) => line.message.tool_calls);
    expect(with_calls).toHaveLength(1);
    expect(with_calls[0]?.message.tool_calls).toEqual([
      { function: { index: 0, name: 'f', arguments: { x: 1 } } },
    ]);
    expect(lines.slice(0, -1).every((line) => line.done === false)).toBe(true);
    expect(lines.at(-1)).toMatchObject({
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 7,
      eval_count: 8,
      model: 'llama',
    });
    expect(server.requests[0]?.stream).toBe(true);
  });

  it('answers one object when stream is false', async () => {
    const server = await track(start_ollama_server({ script: [{ text: 'whole' }] }));
    const body = (await (
      await post(`${server.base_url}/api/chat`, { model: 'llama', stream: false })
    ).json()) as Json;
    expect(body).toMatchObject({ message: { role: 'assistant', content: 'whole' }, done: true });
  });

  it('sends an error line mid-stream', async () => {
    const server = await track(
      start_ollama_server({ script: [{ text: 'a', error_event: { message: 'model crashed' } }] }),
    );
    const text = await (await post(`${server.base_url}/api/chat`, {})).text();
    expect(text.trim().split('\n').at(-1)).toBe('{"error":"model crashed"}');
  });
});

describe('faults', () => {
  it('answers error statuses in each format with the retry headers', async () => {
    const openai = await track(
      start_openai_server({
        script: [
          { kind: 'status', status: 429, retry_after: 2, retry_after_ms: 1500, should_retry: true },
        ],
      }),
    );
    const response = await post(`${openai.base_url}/chat/completions`, {});
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(response.headers.get('retry-after-ms')).toBe('1500');
    expect(response.headers.get('x-should-retry')).toBe('true');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await response.json()).toEqual({
      error: {
        message: 'Rate limit reached for requests.',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    });

    const anthropic = await track(
      start_anthropic_server({
        script: [
          { kind: 'status', status: 529 },
          { kind: 'status', status: 401 },
        ],
      }),
    );
    const overloaded = await post(`${anthropic.base_url}/v1/messages`, {});
    expect(overloaded.status).toBe(529);
    const request_id = overloaded.headers.get('request-id');
    expect(request_id).toMatch(/^req_/);
    expect(await overloaded.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
      request_id,
    });
    const unauthorized = (await (
      await post(`${anthropic.base_url}/v1/messages`, {})
    ).json()) as Json;
    expect(unauthorized.error.type).toBe('authentication_error');

    const ollama = await track(
      start_ollama_server({
        script: [
          { kind: 'status', status: 404, message: 'model "x" not found, try pulling it first' },
        ],
      }),
    );
    const missing = await post(`${ollama.base_url}/api/chat`, {});
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'model "x" not found, try pulling it first' });
  });

  it('answers a clear 500 when the script ran out, and 404 off its path without using a step', async () => {
    const server = await track(start_openai_server({ script: [{ text: 'one' }] }));
    const wrong = await post(`${server.url}/chat/completions`, {});
    expect(wrong.status).toBe(404);
    expect(server.pending).toBe(1);
    expect((await post(`${server.base_url}/chat/completions`, {})).status).toBe(200);
    const empty = await post(`${server.base_url}/chat/completions`, {});
    expect(empty.status).toBe(500);
    expect(empty.headers.get('x-should-retry')).toBe('false');
    expect(((await empty.json()) as Json).error.message).toContain('the script ran out');
  });

  it('answers from respond() once the queue is empty, and can keep no requests', async () => {
    const server = await track(
      start_openai_server({
        script: [{ text: 'queued' }],
        record_requests: false,
        respond: (request) => ({ text: `re: ${(request.body as Json).messages.at(-1).content}` }),
      }),
    );
    const ask = async (content: string) => {
      const response = await post(`${server.base_url}/chat/completions`, {
        messages: [{ role: 'user', content }],
      });
      return ((await response.json()) as Json).choices[0].message.content;
    };
    expect(await ask('a')).toBe('queued');
    expect(await ask('b')).toBe('re: b');
    expect(await ask('c')).toBe('re: c');
    expect(server.requests).toEqual([]);
    await server.wait_for_requests(3);
  });

  it('cuts the connection after N bytes of body', async () => {
    const server = await track(
      start_anthropic_server({
        script: [{ kind: 'cut', after_bytes: 100, reply: { text: 'x'.repeat(500) } }],
      }),
    );
    const response = await post(`${server.base_url}/v1/messages`, { stream: true });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let received = 0;
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          received += value.length;
        }
      })(),
    ).rejects.toThrow();
    expect(received).toBe(100);
  });

  it('resets the socket before any response', async () => {
    const server = await track(start_ollama_server({ script: [{ kind: 'reset' }] }));
    await expect(post(`${server.base_url}/api/chat`, {})).rejects.toThrow(/fetch failed/);
  });

  it('stalls without a byte until the client gives up, and close() ends it', async () => {
    const server = await track(
      start_openai_server({ script: [{ kind: 'stall' }, { kind: 'stall', headers: true }] }),
    );
    const started = performance.now();
    await expect(
      post(`${server.base_url}/chat/completions`, {}, { signal: AbortSignal.timeout(150) }),
    ).rejects.toThrow();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    const response = await post(`${server.base_url}/chat/completions`, { stream: true });
    expect(response.status).toBe(200);
    const reading = response.text();
    await server.close();
    await expect(reading).rejects.toThrow();
  });

  it('sends slow chunks with a delay between them', async () => {
    const server = await track(
      start_openai_server({ script: [{ text: 'abcdefgh', chunk_chars: 2, chunk_delay_ms: 30 }] }),
    );
    const started = performance.now();
    await (await post(`${server.base_url}/chat/completions`, { stream: true })).text();
    // role chunk + 4 pieces + finish + [DONE] = 7 writes, 6 pauses
    expect(performance.now() - started).toBeGreaterThanOrEqual(170);
  });

  it('answers an HTML page, raw bytes, and split writes', async () => {
    const server = await track(
      start_fake_server({
        format: 'openai',
        script: [
          { kind: 'html' },
          { kind: 'raw', chunks: ['data: {not json}\n', '\n', Buffer.from('data: [DONE]\n\n')] },
          { text: 'é🙂é', write_bytes: 3 },
        ],
      }),
    );
    const html = await post(`${server.base_url}/chat/completions`, { stream: true });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(await html.text()).toContain('<html>');
    const raw = await post(`${server.base_url}/chat/completions`, { stream: true });
    expect(await raw.text()).toBe('data: {not json}\n\ndata: [DONE]\n\n');
    const split = await post(`${server.base_url}/chat/completions`, { stream: true });
    const events = parse_sse_text(await split.text());
    const text = events
      .slice(0, -1)
      .map((event) => (JSON.parse(event.data) as Json).choices[0].delta.content ?? '')
      .join('');
    expect(text).toBe('é🙂é');
  });

  it('waits delay_ms before answering', async () => {
    const server = await track(start_ollama_server({ script: [{ text: 'x', delay_ms: 120 }] }));
    const started = performance.now();
    await (await post(`${server.base_url}/api/chat`, {})).text();
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });
});

describe('requests, fixtures and lifecycle', () => {
  it('records method, path, headers and parsed body of every request', async () => {
    const server = await track(start_anthropic_server({ script: [{ text: 'a' }] }));
    await post(
      `${server.base_url}/v1/messages`,
      { model: 'c', stream: false, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-api-key': 'secret', 'anthropic-version': '2023-06-01' } },
    );
    await fetch(`${server.url}/v1/models`);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]).toMatchObject({
      index: 0,
      method: 'POST',
      path: '/v1/messages',
      stream: false,
      body: { model: 'c', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(server.requests[0]?.headers['x-api-key']).toBe('secret');
    expect(server.requests[0]?.headers['anthropic-version']).toBe('2023-06-01');
    expect(server.requests[1]).toMatchObject({
      method: 'GET',
      path: '/v1/models',
      body: undefined,
    });
  });

  it('replays a fixture verbatim', async () => {
    const server = await track(
      start_openai_server({
        script: [
          { kind: 'replay', fixture: 'openai_parallel_tool_calls.sse' },
          { kind: 'replay', fixture: 'ollama_thinking_tool_call.ndjson', write_bytes: 7 },
        ],
      }),
    );
    const text = await (await post(`${server.base_url}/chat/completions`, { stream: true })).text();
    expect(text).toBe(readFileSync(fixture_path('openai_parallel_tool_calls.sse'), 'utf8'));
    const ndjson = await post(`${server.base_url}/chat/completions`, {});
    expect(ndjson.headers.get('content-type')).toBe('application/x-ndjson');
    expect(await ndjson.text()).toBe(
      readFileSync(fixture_path('ollama_thinking_tool_call.ndjson'), 'utf8'),
    );
  });

  it('fixtures hold valid JSON events', () => {
    for (const name of [
      'openai_parallel_tool_calls.sse',
      'openrouter_reasoning.sse',
      'anthropic_thinking_tool_use.sse',
    ]) {
      const events = parse_sse_text(readFileSync(fixture_path(name), 'utf8'));
      expect(events.length).toBeGreaterThan(5);
      for (const event of events) if (event.data !== '[DONE]') JSON.parse(event.data);
    }
    const lines = readFileSync(fixture_path('ollama_thinking_tool_call.ndjson'), 'utf8')
      .trim()
      .split('\n');
    for (const line of lines) JSON.parse(line);
  });

  it('waits for requests, closes idempotently, and an unused port refuses', async () => {
    const server = await track(start_ollama_server({ script: [{ text: 'x' }] }));
    const waiting = server.wait_for_requests(1);
    await post(`${server.base_url}/api/chat`, {});
    await waiting;
    await expect(server.wait_for_requests(2, { timeout_ms: 50 })).rejects.toThrow(/1 of 2/);
    await server.close();
    await server.close();
    const url = await unused_port_url();
    await expect(post(`${url}/api/chat`, {})).rejects.toThrow(/fetch failed/);
  });
});
