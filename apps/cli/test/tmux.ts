/**
 * A real terminal for end-to-end tests: a tmux server of the test's own (its own socket), one
 * window running a command, keys sent with `send-keys`, the screen and its scrollback read with
 * `capture-pane`. Every wait is on what the pane shows (or on a file), with a deadline; nothing
 * sleeps a fixed time.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Requirement, require_or_skip } from '@lich/testkit';

const run = promisify(execFile);

/** Whether tmux can be run here. */
export async function tmux_available(): Promise<boolean> {
  try {
    await run('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the tmux tests run here: skipped with a reason where tmux is missing, required (a
 * failure) when `LICH_REQUIRE_TMUX=1`, as CI sets it.
 */
export async function tmux_or_skip(): Promise<Requirement> {
  return require_or_skip(
    'tmux',
    await tmux_available(),
    'LICH_REQUIRE_TMUX',
    'tmux is not installed',
  );
}

/** Quotes `word` for `sh`. */
export function sh_quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** One tmux server with one window. */
export class TmuxTerminal {
  /** The server's socket lives in a folder of its own, gone with `kill` (tmux leaves it). */
  private readonly dir = mkdtempSync(join(tmpdir(), 'lich-e2e-tmux-'));
  private readonly socket = join(this.dir, 'socket');
  /** The last pane text read, for failure messages. */
  last = '';

  private tmux(...args: string[]): Promise<{ stdout: string }> {
    return run('tmux', ['-S', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /**
   * Starts `command` (a shell command line) in a window of `columns` × `rows`, in `cwd`. The pane
   * stays after the command ends, so what it left can still be read.
   */
  async start(command: string, options: { cwd: string; columns: number; rows: number }) {
    await this.tmux(
      'new-session',
      '-d',
      '-s',
      'e2e',
      '-x',
      String(options.columns),
      '-y',
      String(options.rows),
      '-c',
      options.cwd,
      command,
    );
    await this.tmux('set-option', '-t', 'e2e', 'remain-on-exit', 'on');
    await this.tmux('set-option', '-t', 'e2e', 'history-limit', '5000');
  }

  /** Pastes `text` as a terminal does (bracketed, when the program asked for it). */
  async paste(text: string): Promise<void> {
    await this.tmux('set-buffer', '-b', 'e2e-paste', text);
    await this.tmux('paste-buffer', '-p', '-d', '-b', 'e2e-paste', '-t', 'e2e');
  }

  /** Types `text` literally (no key names). */
  async type(text: string): Promise<void> {
    await this.tmux('send-keys', '-t', 'e2e', '-l', text);
  }

  /** Sends key names: `Enter`, `Escape`, `C-c`. */
  async keys(...names: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', 'e2e', ...names);
  }

  /** Resizes the window, as a person dragging its corner does. */
  async resize(columns: number, rows: number): Promise<void> {
    await this.tmux('resize-window', '-t', 'e2e', '-x', String(columns), '-y', String(rows));
  }

  /** The visible screen. */
  async screen(): Promise<string> {
    const { stdout } = await this.tmux('capture-pane', '-p', '-t', 'e2e');
    this.last = stdout;
    return stdout;
  }

  /** The scrollback and the screen, joined lines unwrapped (`-J`). */
  async all(): Promise<string> {
    const { stdout } = await this.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'e2e');
    this.last = stdout;
    return stdout;
  }

  /**
   * Resolves with the pane's text (scrollback included) once `check` accepts it; rejects after
   * `timeout_ms` with what the pane last showed.
   */
  async wait_for(
    check: (text: string) => boolean,
    what: string,
    timeout_ms = 20_000,
  ): Promise<string> {
    const deadline = Date.now() + timeout_ms;
    for (;;) {
      const text = await this.all();
      if (check(text)) return text;
      if (Date.now() > deadline) {
        throw new Error(`the terminal never showed ${what}; it showed:\n${text}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Ends the tmux server and what runs in it, and removes its socket. */
  async kill(): Promise<void> {
    await this.tmux('kill-server').catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Resolves with the content of `file` once it exists and is not empty, or rejects at the deadline. */
export async function wait_for_file(file: string, what: string, timeout_ms = 20_000) {
  const deadline = Date.now() + timeout_ms;
  for (;;) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (text.trim() !== '') return text.trim();
    if (Date.now() > deadline) throw new Error(`${what} never happened`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** How `start_lich` runs the built `lich` in a terminal. */
export interface LichInTerminal {
  /** The built bin (`BIN` of the helpers). */
  bin: string;
  /** The whole environment lich sees (`env -i`): nothing of the test process leaks in. */
  env: Record<string, string>;
  args?: readonly string[];
  cwd: string;
  /** Where the exit code is written when lich ends; absent: not written. */
  code_file?: string;
  columns?: number;
  rows?: number;
  /** The shell stays a while after lich ends: tmux blanks a dead pane, so what lich left can be read. */
  linger?: boolean;
}

/** Starts the built `lich` in `terminal`, with exactly `env`, and its exit code going to `code_file`. */
export async function start_lich(terminal: TmuxTerminal, options: LichInTerminal): Promise<void> {
  const assignments = Object.entries(options.env).map(
    ([name, value]) => `${name}=${sh_quote(value)}`,
  );
  const lich = [process.execPath, options.bin, ...(options.args ?? [])].map(sh_quote).join(' ');
  const code = options.code_file === undefined ? '' : `; echo $? > ${sh_quote(options.code_file)}`;
  await terminal.start(
    `env -i ${assignments.join(' ')} ${lich}${code}${options.linger ? '; sleep 20' : ''}`,
    {
      cwd: options.cwd,
      columns: options.columns ?? 100,
      rows: options.rows ?? 30,
    },
  );
}
