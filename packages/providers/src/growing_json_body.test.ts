import { describe, expect, it } from 'vitest';
import { GrowingJsonBody } from './growing_json_body.js';
import type { JsonBytes } from './json_bytes.js';

const text = (bytes: JsonBytes) => Buffer.from(bytes.joined()).toString('utf8');
const message = (role: string, content: string) => ({ role, content });
const TOOLS = [{ type: 'function', function: { name: 'read_file', parameters: {} } }];

describe('GrowingJsonBody', () => {
  it('writes what JSON.stringify writes, call after call, as the history grows', () => {
    const encoder = new GrowingJsonBody('messages');
    const history: object[] = [message('system', 'be brief'), message('user', 'héllo ✓ 🦀')];
    for (let turn = 0; turn < 30; turn++) {
      const body = { model: 'm', messages: [...history], stream: true, tools: TOOLS };
      const bytes = encoder.encode(body);
      expect(text(bytes)).toBe(JSON.stringify(body));
      expect(bytes.length).toBe(Buffer.byteLength(JSON.stringify(body)));
      history.push(
        message('assistant', `turn ${turn} "quoted" \n`),
        message('tool', 'x'.repeat(turn * 50)),
      );
    }
  });

  it('keeps the bytes it handed out unchanged when a later history diverges or grows', () => {
    const encoder = new GrowingJsonBody('messages');
    const a = [message('system', 's'), message('user', 'one'), message('assistant', 'two')];
    const first = encoder.encode({ messages: a });
    const first_text = text(first);
    const summary = message('user', 'a summary of what came before');
    const rewritten = { messages: [a[0], summary, message('user', 'three')] };
    expect(text(encoder.encode(rewritten))).toBe(JSON.stringify(rewritten));
    const longer = { messages: [...rewritten.messages, message('user', 'z'.repeat(40_000))] };
    expect(text(encoder.encode(longer))).toBe(JSON.stringify(longer));
    expect(text(first)).toBe(first_text);
  });

  it('serves several interleaved histories, and one it evicted is encoded afresh', () => {
    const encoder = new GrowingJsonBody('messages', 2);
    const histories = [0, 1, 2].map((n) => [message('system', `session ${n}`)]);
    for (let turn = 0; turn < 5; turn++) {
      for (const history of histories) {
        history.push(message('user', `turn ${turn}`));
        const body = { model: 'm', messages: [...history] };
        expect(text(encoder.encode(body))).toBe(JSON.stringify(body));
      }
    }
  });

  it('serialises the rest of the body again when one of its values changed', () => {
    const encoder = new GrowingJsonBody('messages');
    const messages = [message('user', 'hi')];
    const one = { model: 'a', messages, max_tokens: 10 };
    const two = { model: 'b', messages, max_tokens: 10 };
    const three = { model: 'b', max_tokens: 10, messages };
    for (const body of [one, two, three, one]) {
      expect(text(encoder.encode(body))).toBe(JSON.stringify(body));
    }
  });

  it('encodes what it cannot split as a whole: no array, items JSON leaves out, a toJSON', () => {
    const encoder = new GrowingJsonBody('messages');
    const cases: object[] = [
      { model: 'm' },
      { model: 'm', messages: 'not an array' },
      { messages: [undefined, () => 1, message('user', 'x')] },
      { messages: [message('user', 'x')], toJSON: () => ({ replaced: true }) },
    ];
    for (const body of cases) expect(text(encoder.encode(body))).toBe(JSON.stringify(body));
  });

  it('throws what JSON.stringify throws', () => {
    const encoder = new GrowingJsonBody('messages');
    const cyclic: Record<string, unknown> = { role: 'user' };
    cyclic.self = cyclic;
    expect(() => encoder.encode({ messages: [cyclic] })).toThrow(TypeError);
    expect(() => encoder.encode({ messages: [], big: 1n })).toThrow(TypeError);
  });
});
