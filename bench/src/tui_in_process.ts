/**
 * The TUI's own share of a keystroke's latency: `run_tui` in this process on a fake terminal (100 ×
 * 30), fed keys directly and an answer streamed by a fake client at 500 tokens a second. Time is
 * from handing a key to the screen to the write of the frame that shows it, so the pseudo-terminal
 * and the scheduling of two processes are left out: what is left is the TUI's work, which is
 * what the code decides.
 */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { HostEvent, HostEventPayloads, HostEventType, SessionInfo } from '@lich/agent';
import { run_tui, type TuiClient } from '@lich/tui';

const COLUMNS = 100;
const ROWS = 30;
/** Timed keys typed on one line of the prompt before a new one: it never wraps. */
const KEYS_PER_LINE = 40;

/**
 * A terminal's stdout: each write is counted and handed to the waiters, which look for fixed
 * strings in what is written after they were registered (only the new text is scanned, so a long
 * stream never makes a check re-read all that came before).
 */
function fake_stdout() {
  const waiters = new Set<(text: string) => void>();
  const counts = { writes: 0, chars: 0 };
  const stdout = Object.assign(new EventEmitter(), {
    isTTY: true,
    columns: COLUMNS,
    rows: ROWS,
    write(data: string | Uint8Array, ...rest: unknown[]) {
      const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
      counts.writes += 1;
      counts.chars += text.length;
      for (const waiter of [...waiters]) waiter(text);
      (rest.find((value) => typeof value === 'function') as (() => void) | undefined)?.();
      return true;
    },
    getColorDepth: () => 8,
    hasColors: () => true,
    cursorTo: () => true,
    moveCursor: () => true,
    clearLine: () => true,
  });
  /** Resolves once `needle` is written, from now on. */
  const written = (needle: string) =>
    new Promise<void>((resolve) => {
      let carry = '';
      const test = (text: string) => {
        const window = carry + text;
        if (!window.includes(needle)) {
          carry = needle.length > 1 ? window.slice(1 - needle.length) : '';
          return;
        }
        waiters.delete(test);
        resolve();
      };
      waiters.add(test);
    });
  return { stdout: stdout as unknown as NodeJS.WriteStream, counts, written };
}

const INFO: SessionInfo = {
  session_id: 'bench-session',
  title: '',
  path: null,
  work_dir: '/bench',
  model: 'fake',
  provider: 'openai_compat',
  created: '2026-01-01T00:00:00.000Z',
  updated: '2026-01-01T00:00:00.000Z',
  live: true,
  busy: false,
  queued: 0,
  approval_mode: 'default',
  usage_total: { input_tokens: 0, output_tokens: 0 },
};

/** A client with one session whose events the bench emits. */
function bench_client() {
  let listener: ((event: HostEvent) => void) | null = null;
  let seq = 0;
  const client: TuiClient = {
    epoch: 'bench',
    mode: 'local',
    create: async () => INFO,
    load: async () => INFO,
    list: async () => [INFO],
    get: async () => INFO,
    history: async () => [],
    prompt: async () => ({ turn_id: 'turn-1', queued: false }),
    follow_up: async () => ({ turn_id: 'turn-2', queued: true }),
    steer: async () => undefined,
    abort: async () => false,
    interrupt: async () => ({ aborted: false, queued: [] }),
    subscribe: async (_session, on_event) => {
      listener = on_event;
      return { replayed: 0, truncated: false, unsubscribe: () => undefined };
    },
    respond_permission: async () => true,
    set_approval_mode: async () => undefined,
    commands: async () => [],
    run_command: async () => ({ ok: true, output: '' }),
    rewind_points: async () => [],
    rewind: async () => ({ status: 'nothing', redo: false, summary: '' }),
    on_connection: () => () => undefined,
    close: async () => undefined,
  };
  const emit = <K extends HostEventType>(type: K, payload: HostEventPayloads[K]) => {
    seq += 1;
    listener?.({ session_id: INFO.session_id, epoch: 'bench', seq, type, payload } as HostEvent);
  };
  return { client, emit, subscribed: () => listener !== null };
}

/** A typed character as the key parser gives it. */
type BenchKey = { name: string; text?: string; ctrl: boolean; meta: boolean; shift: boolean };
const text_key = (text: string): BenchKey => ({
  name: 'text',
  text,
  ctrl: false,
  meta: false,
  shift: false,
});
const ctrl_key = (name: string): BenchKey => ({ name, ctrl: true, meta: false, shift: false });

/** What the in-process run measured. */
export interface InProcessTimes {
  /** Keystroke-to-frame times at rest, ms. */
  rest: number[];
  /** Keystroke-to-frame times while the answer streams, ms. */
  streaming: number[];
  /** Writes to the terminal per keystroke at rest (a frame should be one). */
  writes_per_key: number;
  /** Writes to the terminal per second while the answer streams, typing included. */
  writes_per_second_streaming: number;
}

/** Keystroke-to-frame times in this process, at rest and while 5,000 tokens stream. */
export async function in_process_keystrokes(options: {
  keystrokes: number;
  answer: string;
  chunk_chars: number;
  chunk_ms: number;
}): Promise<InProcessTimes> {
  const { stdout, counts, written } = fake_stdout();
  // the status line names the model once the session is open
  const ready = written('fake ·');
  const key_listeners = new Set<(key: BenchKey) => void>();
  const keys = {
    on_key(listener: (key: BenchKey) => void) {
      key_listeners.add(listener);
      return () => key_listeners.delete(listener);
    },
  };
  const press = (key: BenchKey) => {
    for (const listener of [...key_listeners]) listener(key);
  };
  const { client, emit, subscribed } = bench_client();
  const exited = run_tui({
    client,
    work_dir: process.cwd(),
    env: {},
    stdin: new PassThrough() as unknown as NodeJS.ReadStream,
    stdout,
    keys,
    history_file: null,
  });
  const poll = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  await poll(subscribed);
  await ready;

  let lines = 0;
  /**
   * Empties the prompt (unless it is empty) and types an untimed prefix that differs from line
   * to line, so a keystroke's echo is never mistaken for something else on the screen.
   */
  const new_line = async (typed: string) => {
    const prefix = `qj${lines % 10}`;
    lines += 1;
    const shown = written(prefix);
    if (typed !== '') press(ctrl_key('u'));
    for (const char of prefix) press(text_key(char));
    await shown;
    return prefix;
  };
  let untimed_frames = 0;
  /** Types `count` keys, a new line every `KEYS_PER_LINE` (the echo stays on one row). */
  const type = async (count: number, stop: () => boolean) => {
    const times: number[] = [];
    let typed = '';
    for (let index = 0; index < count && !stop(); index++) {
      if (typed === '' || typed.length >= KEYS_PER_LINE + 3) {
        const before = counts.writes;
        typed = await new_line(typed);
        untimed_frames += counts.writes - before;
      }
      const char = String.fromCharCode(97 + (index % 26));
      typed += char;
      const shown = written(typed.slice(-20));
      const started = performance.now();
      press(text_key(char));
      await shown;
      times.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    press(ctrl_key('u'));
    return times;
  };

  const writes_before = counts.writes;
  const rest = await type(options.keystrokes, () => false);
  // the Ctrl+U after the last key is one more frame; the new lines' frames are not keystrokes'
  const writes_per_key = (counts.writes - writes_before - untimed_frames) / (rest.length + 1);
  const stream_writes = counts.writes;
  const stream_started = performance.now();
  let idle: Promise<void> | null = null;

  emit('turn.started', { turn_id: 'turn-1', input: 'stream', kind: 'prompt' });
  let offset = 0;
  let done = false;
  const timer = setInterval(() => {
    if (offset >= options.answer.length) {
      clearInterval(timer);
      // the end of the turn on screen: the placeholder of an idle prompt
      idle = written('ask anything');
      emit('turn.completed', {
        turn_id: 'turn-1',
        stop_reason: 'final',
        usage: { input_tokens: 1, output_tokens: 1 },
        final: null,
        turns_used: 1,
      });
      done = true;
      return;
    }
    emit('message.delta', {
      turn_id: 'turn-1',
      text: options.answer.slice(offset, offset + options.chunk_chars),
    });
    offset += options.chunk_chars;
  }, options.chunk_ms);
  const streaming = await type(options.keystrokes, () => done);
  await poll(() => done);
  const writes_per_second_streaming =
    (counts.writes - stream_writes) / ((performance.now() - stream_started) / 1000);
  // Ctrl+C once the end of the turn is on screen: pressed while the turn still shows as running,
  // it would abort the turn instead of leaving
  await idle;
  press(ctrl_key('c'));
  press(ctrl_key('c'));
  await exited;
  return { rest, streaming, writes_per_key, writes_per_second_streaming };
}
