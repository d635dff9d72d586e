import { Writable } from 'node:stream';
import type { AgentEvent } from '@lich/core';
import { describe, expect, it, vi } from 'vitest';
import { ProgressView } from './progress.js';
import { make_style } from './style.js';

function sink(is_tty: boolean): Writable & { isTTY: boolean; text: string } {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      stream.text += String(chunk);
      done();
    },
  }) as Writable & { isTTY: boolean; text: string };
  stream.isTTY = is_tty;
  stream.text = '';
  return stream;
}

/** A view over two sinks, with what a test changes of the options. */
function view_of(
  stdout: ReturnType<typeof sink>,
  stderr: ReturnType<typeof sink>,
  options: {
    out_env?: Record<string, string>;
    show_reasoning?: boolean;
    write_answer?: boolean;
  } = {},
): ProgressView {
  return new ProgressView({
    stdout,
    stderr,
    out: make_style(stdout, options.out_env ?? {}),
    err: make_style(stderr, {}),
    show_reasoning: options.show_reasoning ?? false,
    write_answer: options.write_answer ?? true,
  });
}

const call = { id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' };

function run_events(view: ProgressView): void {
  const events: AgentEvent[] = [
    { type: 'llm_start', turn: 1, grace: false, context_tokens: 0 },
    { type: 'llm_delta', turn: 1, delta: { kind: 'reasoning', text: 'hmm' } },
    { type: 'llm_delta', turn: 1, delta: { kind: 'text', text: 'Let me look.' } },
    {
      type: 'llm_end',
      turn: 1,
      message: { role: 'assistant', content: 'Let me look.', tool_calls: [call], reasoning: 'hmm' },
      finish_reason: 'tool_calls',
      duration_ms: 5,
    },
    { type: 'tool_call_start', turn: 1, call, args: { path: 'a.txt' } },
    {
      type: 'tool_call_end',
      turn: 1,
      call,
      result: {
        ok: false,
        output: 'no such file',
        error: 'no such file: a.txt',
        duration_ms: 1200,
      },
      message: { role: 'tool', tool_call_id: 'c1', content: 'no such file' },
    },
    { type: 'llm_start', turn: 2, grace: false, context_tokens: 0 },
    { type: 'llm_delta', turn: 2, delta: { kind: 'text', text: 'It is ' } },
    { type: 'llm_delta', turn: 2, delta: { kind: 'text', text: 'missing.' } },
    {
      type: 'llm_end',
      turn: 2,
      message: { role: 'assistant', content: 'It is missing.' },
      finish_reason: 'stop',
      duration_ms: 5,
    },
  ];
  for (const event of events) view.listener(event);
}

describe('ProgressView', () => {
  it('through a pipe: stdout gets exactly the answer, the preamble goes to stderr', () => {
    const stdout = sink(false);
    const stderr = sink(false);
    const view = view_of(stdout, stderr);
    run_events(view);
    expect(stdout.text).toBe('It is missing.\n');
    expect(stderr.text).toBe('Let me look.\n✗ read_file a.txt 1.2 s — no such file: a.txt\n');
    expect(view.answer).toBe('It is missing.');
    expect(view.tool_calls).toEqual([
      {
        name: 'read_file',
        arguments: { path: 'a.txt' },
        ok: false,
        duration_ms: 1200,
        error: 'no such file: a.txt',
      },
    ]);
  });

  it('on a terminal: streams text live and shows reasoning when asked', () => {
    const stdout = sink(true);
    const stderr = sink(false);
    const view = view_of(stdout, stderr, { out_env: { NO_COLOR: '1' }, show_reasoning: true });
    run_events(view);
    expect(stdout.text).toBe('Let me look.\nIt is missing.\n');
    expect(stderr.text).toContain('hmm\n');
  });

  it('writes nothing to stdout for --json', () => {
    const stdout = sink(false);
    const stderr = sink(false);
    const view = view_of(stdout, stderr, { write_answer: false });
    run_events(view);
    expect(stdout.text).toBe('');
    expect(view.answer).toBe('It is missing.');
  });

  it('says whether a command ran sandboxed, on the line and in the summary', () => {
    const stdout = sink(false);
    const stderr = sink(false);
    const view = view_of(stdout, stderr, { write_answer: false });
    const end = (id: string, sandbox: string): AgentEvent => ({
      type: 'tool_call_end',
      turn: 1,
      call: { id, name: 'terminal', arguments: '{}' },
      result: { ok: true, output: '[exit code 0]', duration_ms: 30, sandbox },
      message: { role: 'tool', tool_call_id: id, content: '' },
    });
    view.listener(end('a', 'bwrap'));
    view.listener(end('b', 'none'));
    view.stop();
    expect(stderr.text).toBe(
      '✓ terminal 30 ms [sandboxed: bwrap]\n✓ terminal 30 ms [not sandboxed]\n',
    );
    expect(view.tool_calls.map((summary) => summary.sandbox)).toEqual(['bwrap', 'none']);
  });

  it('on a terminal shows a spinner naming the call while it runs, and none through a pipe', () => {
    vi.useFakeTimers();
    try {
      const shown: string[] = [];
      for (const tty of [true, false]) {
        const stderr = sink(tty);
        const view = view_of(sink(false), stderr);
        view.listener({ type: 'tool_call_start', turn: 1, call, args: { path: 'a  b.txt' } });
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
      const end = (id: string): AgentEvent => ({
        type: 'tool_call_end',
        turn: 1,
        call: { id, name: 'glob', arguments: '{}' },
        result: { ok: true, output: '', duration_ms: 2 },
        message: { role: 'tool', tool_call_id: id, content: '' },
      });
      for (const id of ['a', 'b', 'c']) view.listener(end(id));
      expect(writes).toBe(0);
      vi.advanceTimersByTime(50);
      expect(writes).toBe(1);
      expect(stderr.text).toBe('✓ glob 2 ms\n'.repeat(3));
      view.listener(end('d'));
      view.listener({
        type: 'llm_end',
        turn: 2,
        message: { role: 'assistant', content: 'done' },
        finish_reason: 'stop',
        duration_ms: 1,
      });
      expect(stderr.text).toBe('✓ glob 2 ms\n'.repeat(4));
      expect(stdout.text).toBe('done\n');
    } finally {
      vi.useRealTimers();
    }
  });
});
