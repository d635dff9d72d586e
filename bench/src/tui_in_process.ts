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

/** A terminal's stdout: what is written is kept, and each write is announced. */
function fake_stdout() {
  const emitter = new EventEmitter();
  const state = { output: '' };
  const stdout = Object.assign(emitter, {
    isTTY: true,
    columns: COLUMNS,
    rows: ROWS,
    write(data: string | Uint8Array, ...rest: unknown[]) {
      state.output += typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
      emitter.emit('written');
      (rest.find((value) => typeof value === 'function') as (() => void) | undefined)?.();
      return true;
    },
    getColorDepth: () => 8,
    hasColors: () => true,
    cursorTo: () => true,
    moveCursor: () => true,
    clearLine: () => true,
  });
  return { stdout: stdout as unknown as NodeJS.WriteStream, state, emitter };
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
    subscribe: async (_session, on_event) => {
      listener = on_event;
      return { replayed: 0, truncated: false, unsubscribe: () => undefined };
    },
    respond_permission: async () => true,
    set_approval_mode: async () => undefined,
    commands: async () => [],
    run_command: async () => ({ ok: true, output: '' }),
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

/** Keystroke-to-frame times in this process, at rest and while 5,000 tokens stream. */
export async function in_process_keystrokes(options: {
  keystrokes: number;
  answer: string;
  chunk_chars: number;
  chunk_ms: number;
}): Promise<{ rest: number[]; streaming: number[] }> {
  const { stdout, state, emitter } = fake_stdout();
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
  const until = (check: () => boolean) =>
    new Promise<void>((resolve) => {
      if (check()) return resolve();
      const on_write = () => {
        if (!check()) return;
        emitter.off('written', on_write);
        resolve();
      };
      emitter.on('written', on_write);
    });
  const poll = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  await poll(subscribed);
  await until(() => state.output.includes('fake ·'));

  const type = async (count: number, stop: () => boolean) => {
    const times: number[] = [];
    let typed = '';
    for (let index = 0; index < count && !stop(); index++) {
      const char = String.fromCharCode(97 + (index % 26));
      typed += char;
      const shown = typed.slice(-20);
      const from = state.output.length;
      const started = performance.now();
      press(text_key(char));
      await until(() => state.output.slice(from).includes(shown));
      times.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    press(ctrl_key('u'));
    return times;
  };

  const rest = await type(options.keystrokes, () => false);

  emit('turn.started', { turn_id: 'turn-1', input: 'stream', kind: 'prompt' });
  let offset = 0;
  let done = false;
  const timer = setInterval(() => {
    if (offset >= options.answer.length) {
      clearInterval(timer);
      emit('turn.completed', {
        turn_id: 'turn-1',
        stop_reason: 'end_turn',
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
  press(ctrl_key('c'));
  press(ctrl_key('c'));
  await exited;
  return { rest, streaming };
}
