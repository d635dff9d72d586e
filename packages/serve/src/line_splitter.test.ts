import { describe, expect, it } from 'vitest';
import { LineSplitter } from './line_splitter.js';

describe('LineSplitter', () => {
  it('splits on \\n only, never on U+2028 or U+2029', () => {
    const splitter = new LineSplitter(1024);
    const lines = splitter.push('{"a":"x\u2028y"}\n{"b":"\u2029"}\n');
    expect(lines).toEqual([
      { kind: 'line', text: '{"a":"x\u2028y"}' },
      { kind: 'line', text: '{"b":"\u2029"}' },
    ]);
  });

  it('joins a line across chunks, a UTF-8 character cut in two included', () => {
    const splitter = new LineSplitter(1024);
    const bytes = Buffer.from('{"t":"é€😀"}\n');
    const out = [];
    for (let at = 0; at < bytes.length; at += 1)
      out.push(...splitter.push(bytes.subarray(at, at + 1)));
    expect(out).toEqual([{ kind: 'line', text: '{"t":"é€😀"}' }]);
  });

  it('skips empty lines, keeps a trailing \\r, and gives the unterminated tail at the end', () => {
    const splitter = new LineSplitter(1024);
    expect(splitter.push('\n\r\n{"a":1}\r\n{"b"')).toEqual([{ kind: 'line', text: '{"a":1}\r' }]);
    expect(splitter.push(':2}')).toEqual([]);
    expect(splitter.end()).toEqual([{ kind: 'line', text: '{"b":2}' }]);
    expect(splitter.end()).toEqual([]);
  });

  it('reports a line over the limit once, without holding it, and goes on after it', () => {
    const splitter = new LineSplitter(10);
    expect(splitter.push('0123456789')).toEqual([]);
    expect(splitter.push('abc')).toEqual([]);
    expect(splitter.push('def\n{"ok":1}\n')).toEqual([
      { kind: 'oversize', bytes: 16, limit: 10 },
      { kind: 'line', text: '{"ok":1}' },
    ]);
    expect(splitter.push('x'.repeat(20))).toEqual([]);
    expect(splitter.end()).toEqual([{ kind: 'oversize', bytes: 20, limit: 10 }]);
  });
});
