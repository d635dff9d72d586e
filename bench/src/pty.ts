/**
 * A program in a pseudo-terminal (util-linux `script`), matched as it prints, and a typist that
 * times each key to its echo: what `bench:tui` drives `lich` and its floor program with.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * A program running in a pseudo-terminal. What it prints is matched as it arrives: each waiter
 * looks for fixed strings in the output written after it was registered, scanning only the new
 * text (plus an overlap for a string split across two reads), so a long stream never makes the
 * bench re-read, or copy, all it has received at every read.
 */
export class Pty {
  readonly child: ChildProcess;
  /** Characters received so far. */
  received = 0;
  /** The last characters received, for error messages. */
  private tail = '';
  private waiters = new Set<(text: string) => void>();
  readonly exited: Promise<number | null>;

  constructor(
    command: string,
    options: { cwd: string; env: Record<string, string>; columns: number; rows: number },
  ) {
    const line = `stty cols ${options.columns} rows ${options.rows}; exec ${command}`;
    this.child = spawn('script', ['-qfec', line, '/dev/null'], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
    });
    this.child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      this.received += text.length;
      this.tail = (this.tail + text).slice(-400);
      for (const waiter of [...this.waiters]) waiter(text);
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** Resolves once every one of `needles` has appeared in the output received from now on. */
  wait_for(needles: readonly string[], what: string, timeout_ms = 30_000): Promise<void> {
    const pending = new Set(needles);
    const overlap = Math.max(0, ...needles.map((needle) => needle.length - 1));
    let carry = '';
    return new Promise<void>((resolve, reject) => {
      const test = (text: string) => {
        const window = carry + text;
        for (const needle of pending) if (window.includes(needle)) pending.delete(needle);
        carry = overlap === 0 ? '' : window.slice(-overlap);
        if (pending.size > 0) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`never saw ${what}; last output: ${JSON.stringify(this.tail)}`));
      }, timeout_ms);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(test);
      };
      this.waiters.add(test);
    });
  }

  write(text: string): void {
    this.child.stdin!.write(text);
  }

  /** The pid of the program (`script`'s child, which `exec` made it). */
  program_pid(): number {
    const children = readFileSync(
      `/proc/${this.child.pid}/task/${this.child.pid}/children`,
      'utf8',
    ).trim();
    const pid = Number(children.split(/\s+/)[0]);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error('the program under script has no pid');
    return pid;
  }

  /** Stops the program and `script` (the whole process group) and waits for `script`'s exit. */
  async kill(): Promise<void> {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await this.exited;
  }
}

/** Timed keys typed on one line of the prompt before it is emptied: it never wraps. */
const KEYS_PER_LINE = 40;

/**
 * One typist per terminal. Each line of the prompt starts with an untimed three-character prefix
 * that differs from line to line (`qj0`, `qj1`…), so what a keystroke waits for (the last 20
 * characters of the line) is never a string that something else on the screen, or the line
 * before, could show; after KEYS_PER_LINE keys the line is emptied (Ctrl+U) and a new one begun,
 * so the echo is always on one row of the terminal.
 */
export class Typist {
  private typed = '';
  private lines = 0;
  readonly times: number[] = [];
  constructor(readonly pty: Pty) {}

  private async new_line(): Promise<void> {
    const prefix = `qj${this.lines % 10}`;
    this.lines += 1;
    const shown = this.pty.wait_for([prefix], 'a new prompt line');
    this.pty.write(this.typed === '' ? prefix : `\u0015${prefix}`);
    this.typed = prefix;
    await shown;
  }

  /** Types the next character and resolves with the time to the output showing it. */
  async key(index: number): Promise<number> {
    if (this.typed === '' || this.typed.length >= KEYS_PER_LINE + 3) await this.new_line();
    const char = String.fromCharCode(97 + (index % 26));
    this.typed += char;
    const echoed = this.pty.wait_for([this.typed.slice(-20)], `the echo of '${char}'`);
    const started = performance.now();
    this.pty.write(char);
    await echoed;
    const time = performance.now() - started;
    this.times.push(time);
    return time;
  }

  /** Empties the prompt. */
  clear(): void {
    this.typed = '';
    this.pty.write('\u0015');
  }
}
