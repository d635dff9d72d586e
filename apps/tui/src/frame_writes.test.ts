import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { frame_writes } from './frame_writes.js';

const BEGIN = '\u001B[?2026h';
const END = '\u001B[?2026l';

function terminal() {
  const writes: string[] = [];
  const stream = Object.assign(new EventEmitter(), {
    columns: 80,
    isTTY: true,
    write(chunk: string | Uint8Array, ...rest: unknown[]) {
      writes.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      (rest.find((value) => typeof value === 'function') as (() => void) | undefined)?.();
      return true;
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, writes };
}

describe('frame_writes', () => {
  it('joins a synchronized frame into one write, in order', () => {
    const { stream, writes } = terminal();
    const out = frame_writes(stream);
    out.write(BEGIN);
    out.write('erase');
    out.write(Buffer.from('static\n'));
    out.write('frame');
    expect(writes).toEqual([]);
    out.write(END);
    expect(writes).toEqual([`${BEGIN}erasestatic\nframe${END}`]);
  });

  it('passes writes outside a frame through at once', () => {
    const { stream, writes } = terminal();
    const out = frame_writes(stream);
    out.write('\u001B[?25l');
    out.write('plain');
    expect(writes).toEqual(['\u001B[?25l', 'plain']);
  });

  it('writes a frame whose end mark never comes at the end of the tick', async () => {
    const { stream, writes } = terminal();
    const out = frame_writes(stream);
    out.write(BEGIN);
    out.write('half');
    await Promise.resolve();
    expect(writes).toEqual([`${BEGIN}half`]);
    out.write('after');
    expect(writes).toEqual([`${BEGIN}half`, 'after']);
  });

  it('calls the callbacks of held writes once the frame is written', () => {
    const { stream } = terminal();
    const out = frame_writes(stream);
    const called: string[] = [];
    out.write(BEGIN);
    out.write('frame', () => called.push('frame'));
    expect(called).toEqual([]);
    out.write(END, () => called.push('end'));
    expect(called).toEqual(['frame', 'end']);
  });

  it("keeps the stream's own size, properties and events", () => {
    const { stream } = terminal();
    const out = frame_writes(stream);
    expect(out.columns).toBe(80);
    expect('isTTY' in out && out.isTTY).toBe(true);
    let resized = 0;
    const on_resize = () => {
      resized += 1;
    };
    out.on('resize', on_resize);
    stream.emit('resize');
    out.off('resize', on_resize);
    stream.emit('resize');
    expect(resized).toBe(1);
  });
});
