import { describe, expect, it } from 'vitest';
import { parse_tool_arguments } from './parse_tool_arguments.js';

describe('parse_tool_arguments', () => {
  it('parses a JSON object', () => {
    expect(parse_tool_arguments('{"path":"a.ts","n":2}')).toEqual({ path: 'a.ts', n: 2 });
  });

  it('gives {} for anything that is not a JSON object', () => {
    for (const text of ['', '{', 'null', '[1]', '"x"', '3', 'true']) {
      expect(parse_tool_arguments(text)).toEqual({});
    }
  });
});
