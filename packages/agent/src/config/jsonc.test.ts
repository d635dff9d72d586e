import { describe, expect, it } from 'vitest';
import { scan_jsonc } from './jsonc.js';

describe('scan_jsonc', () => {
  it('drops comments, trailing commas and a BOM, and keeps strings whole', () => {
    const text =
      '\uFEFF{\n  // the model\n  "a": "http://x/*y*/", /* inline */\n  "b": [1, 2,],\n}\n';
    const scan = scan_jsonc(text);
    expect(JSON.parse(scan.json)).toEqual({ a: 'http://x/*y*/', b: [1, 2] });
    expect(scan.json.split('\n')).toHaveLength(text.split('\n').length);
    expect(scan.had_comments).toBe(true);
    expect(scan.depth).toBe(2);
  });

  it('measures deep nesting without recursion', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    expect(scan_jsonc(deep).depth).toBe(10_000);
    expect(scan_jsonc('{"a": "[[[["}').depth).toBe(1);
  });
});
