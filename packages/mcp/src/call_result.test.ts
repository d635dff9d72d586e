import { describe, expect, it } from 'vitest';
import { clamp_parts, format_size, map_call_result } from './call_result.js';

describe('map_call_result', () => {
  it('joins text blocks', () => {
    expect(
      map_call_result({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({ ok: true, output: 'a\nb' });
  });

  it('describes images, audio, links and resources', () => {
    const result = map_call_result({
      content: [
        { type: 'image', data: 'A'.repeat(4 * 512), mimeType: 'image/png' },
        { type: 'audio', data: 'AAA=', mimeType: 'audio/wav' },
        {
          type: 'resource_link',
          uri: 'file:///a.txt',
          name: 'a.txt',
          mimeType: 'text/plain',
          size: 2048,
        },
        { type: 'resource', resource: { uri: 'demo://t', mimeType: 'text/plain', text: 'inside' } },
        {
          type: 'resource',
          resource: { uri: 'demo://b', mimeType: 'application/zip', blob: 'AAAA' },
        },
        { type: 'hologram' },
      ],
    });
    expect(result.output.split('\n')).toEqual([
      '[image: image/png, 1.5 KB]',
      '[audio: audio/wav, 2 B]',
      '[resource link: a.txt <file:///a.txt> (text/plain, 2.0 KB)]',
      '[resource: <demo://t> (text/plain, 6 B)]',
      'inside',
      '[resource: <demo://b> (application/zip, 3 B)]',
      '[hologram content]',
    ]);
  });

  it('uses structuredContent when there is no text', () => {
    expect(map_call_result({ content: [], structuredContent: { temperature: 21 } })).toEqual({
      ok: true,
      output: '{"temperature":21}',
    });
    expect(
      map_call_result({ content: [{ type: 'text', text: 'warm' }], structuredContent: { t: 1 } })
        .output,
    ).toBe('warm');
  });

  it('maps isError to ok: false', () => {
    expect(map_call_result({ content: [{ type: 'text', text: 'boom' }], isError: true })).toEqual({
      ok: false,
      output: 'boom',
      error: 'boom',
    });
    expect(map_call_result({ content: [], isError: true }).error).toMatch(/without a message/);
  });

  it('survives any shape', () => {
    expect(map_call_result(null)).toEqual({ ok: true, output: '' });
    expect(map_call_result({ content: 'x' })).toEqual({ ok: true, output: '' });
    expect(map_call_result({ content: [null, 3, { type: 'text' }] })).toEqual({
      ok: true,
      output: '',
    });
  });

  it('clamps long output, keeping head and tail', () => {
    const result = map_call_result(
      { content: [{ type: 'text', text: `${'a'.repeat(5_000)}${'z'.repeat(5_000)}` }] },
      1_000,
    );
    expect(result.output.startsWith('a'.repeat(800))).toBe(true);
    expect(result.output.endsWith('z'.repeat(200))).toBe(true);
    expect(result.output).toContain('[… 9000 characters cut: the MCP result had 10000 …]');
  });
});

describe('clamp_parts', () => {
  it('keeps short output whole', () => {
    expect(clamp_parts(['a', 'b'], 3)).toBe('a\nb');
  });

  it('takes whole parts where they fit', () => {
    const parts = ['head', ...Array.from({ length: 1_000 }, () => 'x'.repeat(100)), 'tail'];
    const text = clamp_parts(parts, 500);
    expect(text.startsWith('head\n')).toBe(true);
    expect(text.endsWith('\ntail')).toBe(true);
    expect(text.length).toBeLessThan(600);
  });
});

describe('format_size', () => {
  it('picks a unit', () => {
    expect(format_size(10)).toBe('10 B');
    expect(format_size(1536)).toBe('1.5 KB');
    expect(format_size(10 * 1024 * 1024)).toBe('10.0 MB');
  });
});
