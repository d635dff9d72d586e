import { describe, expect, it } from 'vitest';
import { GrowingJsonBody } from './growing_json_body.js';
import type { JsonBytes } from './json_bytes.js';

const text = (bytes: JsonBytes) => Buffer.from(bytes.joined()).toString('utf8');
const same = (item: unknown) => item;
/** What the encoder must write: `body` with `field` set to the wire forms of `items`. */
const expected = <Item>(
  body: object,
  items: readonly Item[],
  to_wire: (item: Item) => unknown = same,
  field = 'messages',
) => JSON.stringify({ ...body, [field]: items.map(to_wire).filter((wire) => wire !== undefined) });
const message = (role: string, content: string) => ({ role, content });
const TOOLS = [{ type: 'function', function: { name: 'read_file', parameters: {} } }];

describe('GrowingJsonBody', () => {
  it('writes what JSON.stringify writes, call after call, as the history grows', () => {
    const encoder = new GrowingJsonBody('messages', same);
    const history: object[] = [message('system', 'be brief'), message('user', 'héllo ✓ 🦀')];
    for (let turn = 0; turn < 30; turn++) {
      const body = { model: 'm', messages: [], stream: true, tools: TOOLS };
      const bytes = encoder.encode(body, [...history]);
      expect(text(bytes)).toBe(expected(body, history));
      expect(bytes.length).toBe(Buffer.byteLength(expected(body, history)));
      history.push(
        message('assistant', `turn ${turn} "quoted" \n`),
        message('tool', 'x'.repeat(turn * 50)),
      );
    }
  });

  it('keeps the bytes it handed out unchanged when a later history diverges or grows', () => {
    const encoder = new GrowingJsonBody('messages', same);
    const body = { model: 'm' };
    const a = [message('system', 's'), message('user', 'one'), message('assistant', 'two')];
    const first = encoder.encode(body, a);
    const first_text = text(first);
    const rewritten = [
      a[0],
      message('user', 'a summary of what came before'),
      message('user', '3'),
    ];
    expect(text(encoder.encode(body, rewritten))).toBe(expected(body, rewritten));
    const longer = [...rewritten, message('user', 'z'.repeat(40_000))];
    expect(text(encoder.encode(body, longer))).toBe(expected(body, longer));
    expect(text(first)).toBe(first_text);
  });

  it('serves several interleaved histories, and one it evicted is encoded afresh', () => {
    const encoder = new GrowingJsonBody('messages', same, 2);
    const histories = [0, 1, 2].map((n) => [message('system', `session ${n}`)]);
    for (let turn = 0; turn < 5; turn++) {
      for (const history of histories) {
        history.push(message('user', `turn ${turn}`));
        const body = { model: 'm', messages: [] };
        expect(text(encoder.encode(body, [...history]))).toBe(expected(body, history));
      }
    }
  });

  it('serialises the rest of the body again when one of its values changed', () => {
    const encoder = new GrowingJsonBody('messages', same);
    const messages = [message('user', 'hi')];
    const one = { model: 'a', messages: [], max_tokens: 10 };
    const two = { model: 'b', messages: [], max_tokens: 10 };
    const three = { model: 'b', max_tokens: 10, messages: [] };
    const four = { model: 'b', max_tokens: 10 };
    for (const body of [one, two, three, four, one]) {
      expect(text(encoder.encode(body, messages))).toBe(expected(body, messages));
    }
  });

  it('maps each item once, leaves out what maps to undefined, and honours a toJSON', () => {
    let mapped = 0;
    const to_wire = (item: { role: string; content: string }) => {
      mapped += 1;
      return item.role === 'narrator' ? undefined : { role: item.role, text: item.content };
    };
    const encoder = new GrowingJsonBody('messages', to_wire);
    const body = { model: 'm', messages: [] };
    const history = [message('narrator', 'once'), message('user', 'x'), message('narrator', 'y')];
    expect(text(encoder.encode(body, history))).toBe(expected(body, history, to_wire));
    history.push(message('assistant', 'z'));
    expect(text(encoder.encode(body, history))).toBe(expected(body, history, to_wire));
    mapped = 0;
    encoder.encode(body, [...history, message('user', 'w')]);
    expect(mapped).toBe(1);
    const whole = { messages: [], toJSON: () => ({ replaced: true }) };
    expect(text(encoder.encode(whole, history))).toBe('{"replaced":true}');
    // a wire form JSON cannot write is null, as in any JSON array
    const odd = { messages: [] };
    expect(text(new GrowingJsonBody('messages', same).encode(odd, [undefined, () => 1]))).toBe(
      '{"messages":[null]}',
    );
  });

  it('throws what JSON.stringify throws', () => {
    const encoder = new GrowingJsonBody('messages', same);
    const cyclic: Record<string, unknown> = { role: 'user' };
    cyclic.self = cyclic;
    expect(() => encoder.encode({ messages: [] }, [cyclic])).toThrow(TypeError);
    expect(() => encoder.encode({ messages: [], big: 1n }, [])).toThrow(TypeError);
  });
});
