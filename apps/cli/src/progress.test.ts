import { Writable } from 'node:stream';
import type { HostEvent, HostEventPayloads, HostEventType } from '@lich/agent';
import { describe, expect, it, vi } from 'vitest';
import { ProgressView } from './progress.js';
import { make_style } from './style.js';

type Sink = Writable & { isTTY: boolean; text: string };

function sink(is_tty: boolean): Sink {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      stream.text += String(chunk);
      done();
    },
  }) as Sink;
  stream.isTTY = is_tty;
  stream.text = '';
  return stream;
}

function view_of(
  stdout: Sink,
  stderr: Sink,
  options: {
    show_reasoning?: boolean;
    verbose?: boolean;
    quiet?: boolean;
    write_answer?: boolean;
  } = {},
): ProgressView {
  return new ProgressView({
    stdout,
    stderr,
    out: make_style(stdout, { NO_COLOR: '1' }),
    err: make_style(stderr, { NO_COLOR: '1' }),
    show_reasoning: options.show_reasoning ?? false,
    write_answer: options.write_answer ?? true,
    ...(options.verbose === undefined ? {} : { verbose: options.verbose }),
    ...(options.quiet === undefined ? {} : { quiet: options.quiet }),
  });
}

let seq = 0;

function event<K extends HostEventType>(type: K, payload: HostEventPayloads[K]): HostEvent {
  seq += 1;
  return { session_id: 's1', epoch: 'e1', seq, type, payload } as HostEvent;
}

const USAGE = { input_tokens: 100, output_tokens: 20 };
const turn_id = 't1';
const call = { id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' };

/** A turn: reasoning and text, a failing read, then the answer streamed in two pieces. */
function turn_events(): HostEvent[] {
  return [
    event('turn.started', { turn_id, input: 'where is a.txt?', kind: 'prompt' }),
    event('reasoning.delta', { turn_id, text: 'hmm' }),
    event('message.delta', { turn_id, text: 'Let me look.' }),
    event('message.completed', {
      turn_id,
      message: { role: 'assistant', content: 'Let me look.', tool_calls: [call], reasoning: 'hmm' },
    }),
    event('usage.update', {
      turn_id,
      usage: USAGE,
      usage_total: USAGE,
      cost_usd: 0.0012,
      provider: 'openai',
      model: 'gpt-x',
      duration_ms: 1500,
    }),
    event('tool.start', {
      turn_id,
      tool_call_id: 'c1',
      name: 'read_file',
      args: { path: 'a.txt' },
    }),
    event('tool.running', { turn_id, tool_call_id: 'c1', name: 'read_file' }),
    event('tool.end', {
      turn_id,
      tool_call_id: 'c1',
      name: 'read_file',
      ok: false,
      output: 'no such file',
      error: 'no such file: a.txt',
      duration_ms: 1200,
    }),
    event('message.delta', { turn_id, text: 'It is ' }),
    event('message.delta', { turn_id, text: 'missing.' }),
    event('message.completed', {
      turn_id,
      message: { role: 'assistant', content: 'It is missing.' },
    }),
    event('turn.completed', {
      turn_id,
      stop_reason: 'final',
      usage: USAGE,
      final: 'It is missing.',
      turns_used: 2,
    }),
  ];
}

describe('ProgressView', () => {
  it('through a pipe: stdout gets exactly the answer, the preamble goes to stderr', () => {
    const stdout = sink(false);
    const stderr = sink(false);
    const view = view_of(stdout, stderr);
    for (const item of turn_events()) view.listener(item);
    expect(stdout.text).toBe('It is missing.\n');
    expect(stderr.text).toBe('Let me look.\n✗ read_file a.txt 1.2 s — no such file: a.txt\n');
    expect(view.answer).toBe('It is missing.');
  });

  it('on a terminal: streams the text live, with the reasoning when asked', () => {
    const stdout = sink(true);
    const stderr = sink(false);
    const view = view_of(stdout, stderr, { show_reasoning: true });
    for (const item of turn_events()) view.listener(item);
    expect(stdout.text).toBe('Let me look.\nIt is missing.\n');
    expect(stderr.text).toContain('[reasoning] hmm\n');
  });

  it('-v: a line per model call with who answered, its time, tokens and cost', () => {
    const stderr = sink(false);
    const view = view_of(sink(false), stderr, { verbose: true });
    for (const item of turn_events()) view.listener(item);
    expect(stderr.text).toContain(
      'turn 1: openai/gpt-x answered in 1.5 s, 100 tokens in, 20 out, $0.0012\n',
    );
  });

  it('-q: no tool lines', () => {
    const stderr = sink(false);
    const view = view_of(sink(false), stderr, { quiet: true });
    for (const item of turn_events()) view.listener(item);
    expect(stderr.text).not.toContain('read_file');
  });

  it('says how a command ran, with the sandbox the session named, and unparsed arguments', () => {
    const stderr = sink(false);
    const view = view_of(sink(false), stderr);
    view.listener(
      event('session.info', {
        session_id: 's1',
        title: '',
        path: null,
        work_dir: '/w',
        model: 'm',
        provider: 'p',
        created: '',
        updated: '',
        live: true,
        busy: false,
        queued: 0,
        approval_mode: 'default',
        usage_total: USAGE,
        sandbox: 'bwrap',
      }),
    );
    const end = (tool_call_id: string, sandboxed: boolean) =>
      event('tool.end', {
        turn_id,
        tool_call_id,
        name: 'terminal',
        ok: true,
        output: '[exit code 0]',
        duration_ms: 30,
        sandboxed,
      });
    view.listener(end('a', true));
    view.listener(end('b', false));
    view.listener(
      event('tool.start', { turn_id, tool_call_id: 'c', name: 'write_file', args: '{"path":' }),
    );
    view.listener(
      event('tool.end', {
        turn_id,
        tool_call_id: 'c',
        name: 'write_file',
        ok: false,
        output: 'bad arguments',
        duration_ms: 1,
      }),
    );
    view.stop();
    expect(stderr.text).toBe(
      '✓ terminal 30 ms [sandboxed: bwrap]\n✓ terminal 30 ms [not sandboxed]\n✗ write_file (arguments are not JSON) 1 ms — bad arguments\n',
    );
  });

  it('says what a budget said: a spending warning (not with -q), a stop, the turns run out', () => {
    const shown: string[] = [];
    for (const quiet of [false, true]) {
      const stderr = sink(false);
      const view = view_of(sink(false), stderr, { quiet });
      view.listener(
        event('budget.notice', {
          turn_id,
          kind: 'spending',
          level: 'warning',
          message: '80% of the session budget is spent',
          scope: 'session',
        }),
      );
      view.listener(
        event('budget.notice', {
          turn_id,
          kind: 'turns',
          level: 'stop',
          message: 'used all 3 turns; asking for a final answer',
          max_turns: 3,
          grace: true,
        }),
      );
      view.listener(
        event('budget.notice', {
          turn_id,
          kind: 'spending',
          level: 'stop',
          message: 'the session budget is spent',
        }),
      );
      view.stop();
      shown.push(stderr.text);
    }
    expect(shown[0]).toBe(
      '80% of the session budget is spent\nused all 3 turns; asking for a final answer\nstopped: the session budget is spent\n',
    );
    expect(shown[1]).toBe('stopped: the session budget is spent\n');
  });

  it("notes a turn's own compaction, not the one /compact reports itself", () => {
    const stderr = sink(false);
    const view = view_of(sink(false), stderr);
    view.listener(event('compaction', { turn_id, ok: true, before_count: 30, after_count: 6 }));
    view.listener(event('compaction', { turn_id: '', ok: true, before_count: 6, after_count: 3 }));
    view.stop();
    expect(stderr.text).toBe('compressed the history: 30 → 6 messages\n');
  });

  it('writes nothing to stdout for --json', () => {
    const stdout = sink(false);
    const view = view_of(stdout, sink(false), { write_answer: false });
    for (const item of turn_events()) view.listener(item);
    expect(stdout.text).toBe('');
    expect(view.answer).toBe('It is missing.');
  });

  it('on a terminal shows a spinner naming the call while it runs, and none through a pipe', () => {
    vi.useFakeTimers();
    try {
      const shown: string[] = [];
      for (const tty of [true, false]) {
        const stderr = sink(tty);
        const view = view_of(sink(false), stderr);
        view.listener(
          event('tool.start', {
            turn_id,
            tool_call_id: 'c1',
            name: 'read_file',
            args: { path: 'a  b.txt' },
          }),
        );
        vi.advanceTimersByTime(200);
        view.stop();
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences of colour
        shown.push(stderr.text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, ''));
      }
      expect(shown[0]).toContain('⠋ read_file a b.txt');
      expect(shown[0]).toContain('⠙ read_file a b.txt');
      expect(shown[1]).toBe('');
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes stderr lines together, within 50 ms, and before anything on stdout', () => {
    vi.useFakeTimers();
    try {
      const stdout = sink(false);
      const stderr = sink(false);
      let writes = 0;
      const write = stderr.write.bind(stderr);
      stderr.write = ((...args: Parameters<typeof write>) => {
        writes += 1;
        return write(...args);
      }) as typeof stderr.write;
      const view = view_of(stdout, stderr);
      const end = (id: string): HostEvent =>
        event('tool.end', {
          turn_id,
          tool_call_id: id,
          name: 'glob',
          ok: true,
          output: '',
          duration_ms: 2,
        });
      for (const id of ['a', 'b', 'c']) view.listener(end(id));
      expect(writes).toBe(0);
      vi.advanceTimersByTime(50);
      expect(writes).toBe(1);
      expect(stderr.text).toBe('✓ glob 2 ms\n'.repeat(3));
      view.listener(end('d'));
      view.listener(
        event('message.completed', { turn_id, message: { role: 'assistant', content: 'done' } }),
      );
      expect(stderr.text).toBe('✓ glob 2 ms\n'.repeat(4));
      expect(stdout.text).toBe('done\n');
    } finally {
      vi.useRealTimers();
    }
  });
});
