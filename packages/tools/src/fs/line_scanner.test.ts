import { describe, expect, it } from 'vitest';
import { LineScanner, type ScanWindow } from './line_scanner.js';

const WINDOW: ScanWindow = { first: 1, last: 100, budget: 10_000, max_line_chars: 20 };

function scan(chunks: (string | Buffer)[], window: Partial<ScanWindow> = {}): LineScanner {
  const scanner = new LineScanner({ ...WINDOW, ...window });
  for (const chunk of chunks) {
    if (!scanner.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) return scanner;
  }
  scanner.end();
  return scanner;
}

describe('LineScanner', () => {
  it('numbers lines across chunk borders, a last line without \\n included, \\r\\n trimmed', () => {
    const scanner = scan(['one\ntw', 'o\r\nthr', 'ee']);
    expect(scanner.lines).toEqual(['     1\tone', '     2\ttwo', '     3\tthree']);
    expect(scanner.stopped).toBeUndefined();
    expect(scanner.lines_seen).toBe(3);
  });

  it('keeps the window: counts the lines before it, stops after it', () => {
    const scanner = scan(['a\nb\nc\nd\ne\n'], { first: 2, last: 3 });
    expect(scanner.lines).toEqual(['     2\tb', '     3\tc']);
    expect(scanner.stopped).toBe('limit');
  });

  it('cuts a long line, even one split over chunks, and marks the cut', () => {
    const scanner = scan(['x'.repeat(50), 'y'.repeat(200), '\nnext\n']);
    expect(scanner.lines[0]).toBe(`     1\t${'x'.repeat(20)} …[line cut at 20 characters]`);
    expect(scanner.lines[1]).toBe('     2\tnext');
  });

  it('stops at a line holding a NUL byte', () => {
    const scanner = scan([Buffer.from('ok\nbad\0line\nnever\n')]);
    expect(scanner.lines).toEqual(['     1\tok']);
    expect(scanner.stopped).toBe('binary');
    expect(scanner.line).toBe(2);
  });

  it('stops before the output budget, keeping at least one line', () => {
    const scanner = scan(['aaaaaaaaaa\nbbbbbbbbbb\ncccccccccc\n'], { budget: 30 });
    expect(scanner.lines).toHaveLength(1);
    expect(scanner.stopped).toBe('budget');
  });

  it('does not hold on to a chunk it was given: the caller may reuse its buffer', () => {
    const buffer = Buffer.from('start of a line');
    const scanner = new LineScanner(WINDOW);
    scanner.push(buffer);
    buffer.fill(0x2a);
    scanner.push(Buffer.from(' and its end\n'));
    scanner.end();
    expect(scanner.lines).toEqual([`     1\tstart of a line and  …[line cut at 20 characters]`]);
  });
});
