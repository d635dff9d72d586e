import type { FinishReason } from '@lich/core';
import { type RenderContext, type RenderedResponse, resolve_reply } from './render.js';
import type { FakeReply } from './script.js';
import { arguments_object, arguments_text, split_into, split_text } from './split.js';

const STOP: Record<FinishReason, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'content_filtered',
  error: 'end_turn',
  other: 'end_turn',
};

/** The signature sent with a reply's reasoning. */
export const BEDROCK_FAKE_SIGNATURE = 'bedrock-fake-reasoning-signature';

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let crc = -1;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/**
 * One message of AWS's event stream framing: prelude (total length, headers length, CRC-32),
 * string headers, the payload, a CRC-32 of the whole. Written here apart from the provider's
 * decoder, so the two check each other.
 */
export function event_stream_message(headers: Record<string, string>, payload: unknown): Buffer {
  const head = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const name_bytes = Buffer.from(name);
      const value_bytes = Buffer.from(value);
      const out = Buffer.alloc(1 + name_bytes.length + 1 + 2 + value_bytes.length);
      out.writeUInt8(name_bytes.length, 0);
      name_bytes.copy(out, 1);
      out.writeUInt8(7, 1 + name_bytes.length);
      out.writeUInt16BE(value_bytes.length, 2 + name_bytes.length);
      value_bytes.copy(out, 4 + name_bytes.length);
      return out;
    }),
  );
  const body = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
  const total = 12 + head.length + body.length + 4;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(head.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  head.copy(message, 12);
  body.copy(message, 12 + head.length);
  message.writeUInt32BE(crc32(message.subarray(0, total - 4)), total - 4);
  return message;
}

const event = (type: string, payload: unknown) =>
  event_stream_message(
    { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
    payload,
  );

/** `cacheDetails`: the writes by TTL, 1h before 5m, as the API sorts them. */
function cache_details(usage: { cache_write_tokens?: number; cache_write_1h_tokens?: number }) {
  const hour = usage.cache_write_1h_tokens ?? 0;
  const minutes = (usage.cache_write_tokens ?? 0) - hour;
  return [
    ...(hour > 0 ? [{ ttl: '1h', inputTokens: hour }] : []),
    ...(minutes > 0 ? [{ ttl: '5m', inputTokens: minutes }] : []),
  ];
}

/**
 * Renders a reply as Bedrock's Converse API: `converse-stream` event-stream messages
 * (`messageStart`, reasoning, text and tool-use blocks with their deltas, `messageStop`,
 * `metadata` with the usage), or one `converse` JSON body when not streaming. An `error_event`
 * is an `exception` message of type `modelStreamErrorException`.
 */
export function render_bedrock(reply: FakeReply, context: RenderContext): RenderedResponse {
  const resolved = resolve_reply(reply, context, 'tooluse_fake');
  const stop = reply.wire_finish_reason ?? STOP[resolved.finish_reason];
  const headers = { 'x-amzn-requestid': `req_bedrock_${context.sequence}`, ...reply.headers };
  const read = resolved.usage.cache_read_tokens;
  const written = resolved.usage.cache_write_tokens;
  const usage = {
    inputTokens: resolved.usage.input_tokens - (read ?? 0) - (written ?? 0),
    outputTokens: resolved.usage.output_tokens,
    totalTokens: resolved.usage.input_tokens + resolved.usage.output_tokens,
    ...(read === undefined ? {} : { cacheReadInputTokens: read }),
    ...(written === undefined ? {} : { cacheWriteInputTokens: written }),
    ...(written === undefined ? {} : { cacheDetails: cache_details(resolved.usage) }),
  };
  if (!context.request.stream) {
    const content: unknown[] = [];
    if (resolved.reasoning !== '') {
      content.push({
        reasoningContent: {
          reasoningText: { text: resolved.reasoning, signature: BEDROCK_FAKE_SIGNATURE },
        },
      });
    }
    if (resolved.text !== '') content.push({ text: resolved.text });
    for (const call of resolved.tool_calls) {
      content.push({
        toolUse: { toolUseId: call.id, name: call.name, input: arguments_object(call.arguments) },
      });
    }
    const body = {
      output: { message: { role: 'assistant', content } },
      stopReason: stop,
      usage,
      metrics: { latencyMs: 120 },
    };
    return {
      status: 200,
      content_type: 'application/json',
      headers,
      parts: [JSON.stringify(body)],
    };
  }
  const parts: Uint8Array[] = [event('messageStart', { role: 'assistant' })];
  let index = 0;
  if (resolved.reasoning !== '') {
    for (const piece of split_text(resolved.reasoning, resolved.chunk_chars)) {
      parts.push(
        event('contentBlockDelta', {
          contentBlockIndex: index,
          delta: { reasoningContent: { text: piece } },
        }),
      );
    }
    parts.push(
      event('contentBlockDelta', {
        contentBlockIndex: index,
        delta: { reasoningContent: { signature: BEDROCK_FAKE_SIGNATURE } },
      }),
    );
    parts.push(event('contentBlockStop', { contentBlockIndex: index }));
    index += 1;
  }
  if (resolved.text !== '') {
    for (const piece of split_text(resolved.text, resolved.chunk_chars)) {
      parts.push(event('contentBlockDelta', { contentBlockIndex: index, delta: { text: piece } }));
    }
    parts.push(event('contentBlockStop', { contentBlockIndex: index }));
    index += 1;
  }
  for (const call of resolved.tool_calls) {
    parts.push(
      event('contentBlockStart', {
        contentBlockIndex: index,
        start: { toolUse: { toolUseId: call.id, name: call.name } },
      }),
    );
    for (const piece of split_into(arguments_text(call.arguments), resolved.argument_pieces)) {
      parts.push(
        event('contentBlockDelta', {
          contentBlockIndex: index,
          delta: { toolUse: { input: piece } },
        }),
      );
    }
    parts.push(event('contentBlockStop', { contentBlockIndex: index }));
    index += 1;
  }
  if (reply.error_event) {
    parts.push(
      event_stream_message(
        {
          ':exception-type': reply.error_event.type ?? 'modelStreamErrorException',
          ':content-type': 'application/json',
          ':message-type': 'exception',
        },
        { message: reply.error_event.message },
      ),
    );
  } else if (!reply.unterminated) {
    parts.push(event('messageStop', { stopReason: stop }));
    parts.push(event('metadata', { usage, metrics: { latencyMs: 120 } }));
  }
  return { status: 200, content_type: 'application/vnd.amazon.eventstream', headers, parts };
}
