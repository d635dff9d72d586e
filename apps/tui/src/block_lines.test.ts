import { stripVTControlCharacters } from 'node:util';
import { ATTACHMENT_MARK as AGENT_MARK } from '@lich/agent';
import string_width from 'string-width';
import { describe, expect, it } from 'vitest';
import { ATTACHMENT_MARK, block_lines, fit_tool_line, tool_lines } from './block_lines.js';
import { make_palette } from './palette.js';

const plain = make_palette({ color: false });

describe('a tool line at narrow widths (C22)', () => {
  const write = {
    tool_call_id: 'c1',
    name: 'write_file',
    args: { path: 'notes.md', content: 'a\nb\nc\n' },
    started_at: 0,
    ok: true,
    output: 'Created notes.md (20 bytes, 3 lines).',
    duration_ms: 2_400,
  };

  it('keeps the name and target, shortening the summary first', () => {
    for (const width of [60, 50, 40]) {
      const line = stripVTControlCharacters(tool_lines(write, plain, width)[0] ?? '');
      expect(line).toContain('write_file notes.md');
      expect(string_width(line)).toBeLessThanOrEqual(width);
    }
    const wide = stripVTControlCharacters(tool_lines(write, plain, 100)[0] ?? '');
    expect(wide).toBe('✓ write_file notes.md · 2.4s · Created notes.md (20 bytes, 3 lines).');
  });

  it('cuts a long target only when even the duration does not fit beside it', () => {
    const { head, tail } = fit_tool_line('terminal: echo hi from the terminal tool', ['9ms'], 30);
    expect(head.startsWith('terminal: echo')).toBe(true);
    expect(tail).toBe(' · 9ms');
    expect(string_width(head + tail)).toBeLessThanOrEqual(30);
    expect(fit_tool_line('read_file a.ts', ['9ms', '3 lines'], 40)).toEqual({
      head: 'read_file a.ts',
      tail: ' · 9ms · 3 lines',
    });
  });
});

describe('a prompt with attached files (C31)', () => {
  it('shows the text and the names of the files, not their content', () => {
    expect(ATTACHMENT_MARK).toBe(AGENT_MARK);
    const text = 'look at @a.ts\n\n<file path="a.ts">\n     1\texport {};\n</file>';
    const lines = block_lines({ kind: 'user', id: 1, text, via: 'prompt' }, plain, 80).map((line) =>
      stripVTControlCharacters(line),
    );
    expect(lines).toEqual(['› look at @a.ts', '  + a.ts']);
  });
});
