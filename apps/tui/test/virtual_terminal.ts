/**
 * A terminal for frame tests: what ink writes goes through `@xterm/headless`, a real terminal
 * emulator, so tests read the screen and the scrollback a person would see, after cursor
 * movement, erasing, wrapping and resizing, rather than the raw writes.
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';

// A CommonJS package whose typings declare named exports only: loaded through `require`.
const xterm = createRequire(import.meta.url)('@xterm/headless') as typeof import('@xterm/headless');

/** A fake TTY stdout wired to a headless xterm. */
export class VirtualTerminal {
  readonly terminal: InstanceType<typeof xterm.Terminal>;
  readonly stdout: NodeJS.WriteStream;
  /** Everything written, in order (for tests that count writes or look for escape codes). */
  readonly writes: string[] = [];
  private pending: Promise<void> = Promise.resolve();

  constructor(columns: number, rows: number) {
    this.terminal = new xterm.Terminal({
      cols: columns,
      rows,
      scrollback: 5000,
      allowProposedApi: true,
      // a pty turns LF into CR LF (onlcr); so does this terminal
      convertEol: true,
    });
    const emitter = new EventEmitter();
    const stdout = Object.assign(emitter, {
      isTTY: true,
      columns,
      rows,
      write: (data: string | Uint8Array, ...rest: unknown[]) => {
        const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
        this.writes.push(text);
        this.pending = this.pending.then(
          () => new Promise<void>((resolve) => this.terminal.write(text, resolve)),
        );
        const callback = rest.find((value) => typeof value === 'function') as
          | (() => void)
          | undefined;
        callback?.();
        return true;
      },
      // what ink and node look for on a TTY stream
      getColorDepth: () => 8,
      hasColors: () => true,
      cursorTo: () => true,
      moveCursor: () => true,
      clearLine: () => true,
    });
    this.stdout = stdout as unknown as NodeJS.WriteStream;
  }

  /** Resolves when the emulator has taken everything written so far. */
  async settle(): Promise<void> {
    await this.pending;
  }

  /** Changes the size, as a terminal window does, and tells the program. */
  resize(columns: number, rows: number): void {
    this.terminal.resize(columns, rows);
    Object.assign(this.stdout, { columns, rows });
    (this.stdout as unknown as EventEmitter).emit('resize');
  }

  private line(index: number): string {
    return this.terminal.buffer.active.getLine(index)?.translateToString(true) ?? '';
  }

  /** The visible screen, one string per row, trailing blanks trimmed. */
  screen(): string[] {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < this.terminal.rows; row += 1)
      lines.push(this.line(buffer.viewportY + row));
    return lines;
  }

  /** Scrollback and screen together, without the blank rows at the end. */
  all(): string[] {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let index = 0; index < buffer.length; index += 1) lines.push(this.line(index));
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    return lines;
  }

  /** Whether the program ever erased the display or the scrollback (`ESC [2J`, `ESC [3J`). */
  cleared(): boolean {
    const all = this.writes.join('');
    return all.includes('\u001B[2J') || all.includes('\u001B[3J');
  }

  /** Whether any write set a foreground colour (`ESC [3xm`, `ESC [9xm`). */
  coloured(): boolean {
    return /\[(3[0-8]|9[0-7])m/.test(this.writes.join('').replaceAll('\u001B', ''));
  }

  /** The screen as one text, for `toContain` and snapshots. */
  text(): string {
    return this.all().join('\n');
  }

  dispose(): void {
    this.terminal.dispose();
  }
}
