import { PassThrough } from 'node:stream';
import { render } from 'ink';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeClient } from '../test/fake_client.js';
import { VirtualTerminal } from '../test/virtual_terminal.js';
import { App } from './app.js';
import { TuiController } from './controller.js';
import { make_palette } from './palette.js';
import { SCREEN_OPTIONS } from './screen_options.js';
import { create_store } from './store.js';
import { manual_keys } from './terminal_input.js';

const T = { turn_id: 'turn-1' };
const usage = { input_tokens: 1200, output_tokens: 345 };
const mounted: (() => void)[] = [];

afterEach(() => {
  for (const stop of mounted.splice(0)) stop();
});

async function mount(options: { columns?: number; rows?: number; color?: boolean } = {}) {
  const vt = new VirtualTerminal(options.columns ?? 80, options.rows ?? 24);
  const client = new FakeClient();
  const store = create_store({ frame_ms: 5 });
  const controller = new TuiController(client, store);
  const keys = manual_keys();
  const palette = make_palette({
    color: options.color ?? false,
    plain: options.color === undefined,
  });
  const instance = render(
    <App controller={controller} keys={keys} palette={palette} files={() => ['src/a.ts']} />,
    {
      ...SCREEN_OPTIONS,
      stdout: vt.stdout,
      stdin: new PassThrough() as unknown as NodeJS.ReadStream,
      patchConsole: false,
    },
  );
  mounted.push(() => {
    instance.unmount();
    vt.dispose();
  });
  await controller.start({ kind: 'new' });
  const emit = client.emit.bind(client, 'session-1') as FakeClient['emit'] extends (
    session: string,
    ...rest: infer R
  ) => infer O
    ? (...rest: R) => O
    : never;
  /** Waits until the terminal shows what `check` wants. */
  const until = async (check: (text: string) => boolean, what = 'the screen') => {
    await vi.waitFor(
      async () => {
        await vt.settle();
        if (!check(vt.text())) throw new Error(`${what} never showed; last:\n${vt.text()}`);
      },
      { timeout: 5000, interval: 10 },
    );
  };
  return { vt, client, store, controller, keys, emit, until };
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('App frames', () => {
  it('draws the prompt and the status line at once', async () => {
    const { until, vt } = await mount();
    await until((text) => text.includes('fake-model'));
    const screen = vt.text();
    expect(screen).toContain('› ');
    expect(screen).toContain('ask anything · /help');
    expect(screen).toMatch(/fake-model · openai_compat · ↑0 ↓0 · ession-1 · default/);
  });

  it('echoes typing and submits on Enter', async () => {
    const { until, keys, client } = await mount();
    keys.write('hello there');
    await until((text) => text.includes('› hello there'));
    keys.write('\r');
    await vi.waitFor(() => expect(client.calls_of('prompt')).toHaveLength(1));
    expect(client.calls_of('prompt')[0]?.[1]).toBe('hello there');
  });

  it('streams an answer, then keeps it in scrollback exactly once', async () => {
    const { until, emit, vt } = await mount({ rows: 12 });
    emit('turn.started', { ...T, input: 'explain', kind: 'prompt' });
    emit('message.delta', { ...T, text: 'The first **paragraph**' });
    await until((text) => text.includes('The first paragraph'));
    emit('message.delta', { ...T, text: ' ends.\n\nA second one' });
    await until((text) => text.includes('A second one'));
    emit('message.delta', { ...T, text: ' ends too.' });
    emit('usage.update', { ...T, usage, usage_total: usage });
    emit('turn.completed', { ...T, stop_reason: 'final', usage, final: null, turns_used: 1 });
    await until((text) => text.includes('↑1.2k'));
    emit('turn.started', { turn_id: 't2', input: 'more', kind: 'prompt' });
    for (let index = 0; index < 30; index += 1)
      emit('message.delta', { turn_id: 't2', text: `line ${index}\n\n` });
    emit('turn.completed', {
      turn_id: 't2',
      stop_reason: 'final',
      usage,
      final: null,
      turns_used: 1,
    });
    await until((text) => text.includes('line 29'));
    const all = vt.text();
    expect(count(all, 'The first paragraph ends.')).toBe(1);
    expect(count(all, 'A second one ends too.')).toBe(1);
    expect(count(all, 'line 17')).toBe(1);
    expect(all.indexOf('› explain')).toBeLessThan(all.indexOf('The first paragraph'));
    // never cleared: no erase-display, no erase-scrollback
    expect(vt.cleared()).toBe(false);
  });

  it('rewrites only the lines that changed, as the region grows, stays and shrinks', async () => {
    const { until, emit, keys, vt } = await mount({ rows: 16 });
    const status = /fake-model · openai_compat/g;
    const screen = () => vt.screen().join('\n');
    emit('turn.started', { ...T, input: 'explain', kind: 'prompt' });
    emit('message.delta', { ...T, text: '```\nalpha();\nbeta();\n' });
    await until((text) => text.includes('beta();'), 'the region grown');
    keys.write('typed');
    await until((text) => text.includes('› typed'), 'the typing');
    // the same height: a keystroke rewrites its line, not the code above it
    const before = vt.writes.length;
    keys.write('!');
    await until((text) => text.includes('› typed!'), 'the keystroke');
    const frame = vt.writes.slice(before).join('');
    expect(frame).not.toContain('alpha();');
    expect(screen().match(status)).toHaveLength(1);
    expect(screen().match(/› typed/g)).toHaveLength(1);
    // taller, then shorter again when the code block ends and moves up into the transcript
    emit('message.delta', { ...T, text: 'gamma();\ndelta();\n' });
    await until((text) => text.includes('delta();'), 'the region grown more');
    emit('message.delta', { ...T, text: '```\n\nDone.' });
    emit('usage.update', { ...T, usage, usage_total: usage });
    emit('turn.completed', { ...T, stop_reason: 'final', usage, final: null, turns_used: 1 });
    await until((text) => text.includes('Done.') && text.includes('↑1.2k'), 'the end');
    expect(screen().match(status)).toHaveLength(1);
    expect(screen().match(/› typed!/g)).toHaveLength(1);
    const all = vt.text();
    for (const line of ['alpha();', 'beta();', 'gamma();', 'delta();', 'Done.']) {
      expect(count(all, line)).toBe(1);
    }
    // the status line is the last row drawn, with nothing stale under it
    const rows = vt.screen();
    const last = rows.findLastIndex((row) => row !== '');
    expect(rows[last]).toMatch(status);
  });

  it('keeps a blank line that comes as the region grows at the bottom of the screen', async () => {
    const { until, emit, vt } = await mount({ rows: 12 });
    // an earlier answer fills the screen, so the live region is drawn on its last rows
    emit('turn.started', { ...T, input: 'fill', kind: 'prompt' });
    emit('message.delta', {
      ...T,
      text: Array.from({ length: 14 }, (_, n) => `p${n}`).join('\n\n'),
    });
    emit('turn.completed', { ...T, stop_reason: 'final', usage, final: null, turns_used: 1 });
    await until((text) => text.includes('p13'), 'the first answer');
    emit('turn.started', { turn_id: 't2', input: 'code', kind: 'prompt' });
    emit('message.delta', { turn_id: 't2', text: '```\nfirst_line();\n' });
    await until((text) => text.includes('first_line();'), 'the first code line');
    // the frame grows by five lines at once, the fourth of them blank: it falls where the last
    // frame ended, under the bottom of the screen
    emit('message.delta', { turn_id: 't2', text: 'a();\nb();\nc();\n\nsecond_line();\n' });
    await until((text) => text.includes('second_line();'), 'the second code line');
    const rows = vt.screen();
    const first = rows.findIndex((row) => row.includes('first_line();'));
    expect(rows.slice(first, first + 6).map((row) => row.trim())).toEqual([
      'first_line();',
      'a();',
      'b();',
      'c();',
      '',
      'second_line();',
    ]);
    expect(
      vt
        .screen()
        .join('\n')
        .match(/fake-model · openai_compat/g),
    ).toHaveLength(1);
  });

  it('on leaving takes the prompt and the status line away and keeps the transcript', async () => {
    const { until, emit, store, vt } = await mount();
    emit('turn.started', { ...T, input: 'explain', kind: 'prompt' });
    emit('message.delta', { ...T, text: 'An answer to keep.' });
    emit('turn.completed', { ...T, stop_reason: 'final', usage, final: null, turns_used: 1 });
    await until((text) => text.includes('An answer to keep.') && text.includes('ask anything'));
    store.dispatch({ type: 'leave' });
    await until((text) => !text.includes('ask anything') && !text.includes('fake-model'));
    expect(vt.text()).toContain('An answer to keep.');
    expect(vt.cleared()).toBe(false);
  });

  it('keeps a tall live region shorter than the screen, the top cut with a note', async () => {
    const { until, emit, vt } = await mount({ rows: 10 });
    emit('turn.started', { ...T, input: 'code', kind: 'prompt' });
    const code = Array.from({ length: 40 }, (_, index) => `  statement_${index}();`).join('\n');
    emit('message.delta', { ...T, text: `\`\`\`js\n${code}\n` });
    await until((text) => text.includes('statement_39'));
    expect(vt.screen().join('\n')).toMatch(/… \d+ more lines above/);
    expect(vt.cleared()).toBe(false);
    emit('message.delta', { ...T, text: '```\n' });
    emit('turn.completed', { ...T, stop_reason: 'final', usage, final: null, turns_used: 1 });
    await until((text) => text.includes('statement_0();'));
    expect(count(vt.text(), 'statement_20();')).toBe(1);
  });

  it('shows a running tool with its clock, then its outcome line', async () => {
    const { until, emit } = await mount();
    emit('turn.started', { ...T, input: 'run', kind: 'prompt' });
    emit('tool.start', {
      ...T,
      tool_call_id: 'c1',
      name: 'terminal',
      args: { command: 'npm test' },
    });
    await until((text) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] terminal: npm test \d+ms/.test(text), 'the spinner');
    emit('tool.end', {
      ...T,
      tool_call_id: 'c1',
      name: 'terminal',
      ok: true,
      output: 'ok\n[exit code 0]',
      duration_ms: 1250,
    });
    await until((text) => text.includes('✓ terminal: npm test · 1.3s · exit code 0, 1 line'));
  });

  it('asks a permission with one key and sends the answer', async () => {
    const { until, emit, keys, client } = await mount();
    emit('turn.started', { ...T, input: 'push', kind: 'prompt' });
    emit('permission.request', {
      ...T,
      request_id: 'r1',
      tool_call_id: 'c1',
      tool: 'terminal',
      args: { command: 'git push' },
      title: 'terminal: git push',
      preview: { kind: 'command', text: 'git push origin main --force-with-lease' },
      options: ['allow_once', 'allow_always', 'reject_once', 'reject_always'],
    });
    await until((text) => text.includes('? Allow terminal: git push?'));
    // the whole command line is shown before anything is answered
    await until((text) => text.includes('│ git push origin main --force-with-lease'));
    await until((text) =>
      text.includes('1 allow once · 2 allow always · 3 reject · 4 reject always · 5 say why'),
    );
    // armed only after a quiet spell
    await until((text) => !text.includes('⧗ 1 allow once'));
    keys.write('x');
    keys.write('y');
    await vi.waitFor(() =>
      expect(client.calls_of('respond_permission')).toEqual([['r1', 'allow_once']]),
    );
    emit('permission.resolved', { ...T, request_id: 'r1', option: 'allow_once' });
    await until((text) => text.includes('allowed once: terminal: git push'));
    await until((text) => text.includes('type to queue a follow-up'));
  });

  it('never reads type-ahead as an answer: keys typed as the question appears go to the editor (C2)', async () => {
    const { until, emit, keys, client } = await mount();
    emit('turn.started', { ...T, input: 'go', kind: 'prompt' });
    emit('permission.request', {
      ...T,
      request_id: 'r1',
      tool_call_id: 'c1',
      tool: 'terminal',
      args: { command: 'echo DANGEROUS > danger.txt' },
      title: 'terminal: echo DANGEROUS > danger.txt',
      options: ['allow_once', 'allow_always', 'reject_once', 'reject_always'],
    });
    await until((text) => text.includes('? Allow terminal: echo DANGEROUS'));
    // someone typing a sentence, one key every 200 ms: the question never arms meanwhile
    for (const char of 'and then summarize') {
      keys.write(char);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(client.calls_of('respond_permission')).toEqual([]);
    // what was typed is kept, below the question
    await until((text) => text.includes('› and then summarize'));
    await until((text) => !text.includes('⧗ 1 allow once'));
    keys.write('3');
    await vi.waitFor(() =>
      expect(client.calls_of('respond_permission')).toEqual([['r1', 'reject_once']]),
    );
  });

  it('shows the diff of an edit before it is approved, and rejects with a note for the model (C3)', async () => {
    const { until, emit, keys, client } = await mount({ rows: 30 });
    emit('turn.started', { ...T, input: 'edit', kind: 'prompt' });
    emit('permission.request', {
      ...T,
      request_id: 'r2',
      tool_call_id: 'c2',
      tool: 'edit_file',
      args: { path: 'src/main.ts', old_text: '// TODO', new_text: 'export const x = 1;' },
      title: 'edit_file: src/main.ts',
      preview: {
        kind: 'diff',
        path: 'src/main.ts',
        text: '--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n const a = 1;\n-// TODO\n+export const x = 1;\n',
        summary: '+1 −1',
      },
      options: ['allow_once', 'allow_always', 'reject_once', 'reject_always'],
    });
    await until((text) => text.includes('? Allow edit_file: src/main.ts?  +1 −1'));
    await until((text) => text.includes('│ -// TODO') && text.includes('│ +export const x = 1;'));
    await until((text) => !text.includes('⧗ 1 allow once'));
    keys.write('5');
    await until((text) => text.includes('Your words go to the model'));
    keys.write('use a let, not a const\r');
    await vi.waitFor(() =>
      expect(client.calls_of('respond_permission')).toEqual([
        ['r2', 'reject_once', 'use a let, not a const'],
      ]),
    );
  });

  it('queues what is typed during a run and steers with /steer', async () => {
    const { until, emit, keys, client } = await mount();
    emit('turn.started', { ...T, input: 'long task', kind: 'prompt' });
    await until((text) => text.includes('thinking…'));
    keys.write('and then this\r');
    await until((text) => text.includes('⧗ queued: and then this'));
    expect(client.calls_of('follow_up')).toEqual([['session-1', 'and then this']]);
    keys.write('/steer use tabs\r');
    await until((text) => text.includes('↳ steering: use tabs'));
    expect(client.calls_of('steer')).toEqual([['session-1', 'use tabs']]);
  });

  it('Esc during a run gives control back: the queued follow-up returns to the input, not a new run (C11)', async () => {
    const { until, emit, keys, client } = await mount();
    emit('turn.started', { ...T, input: 'long task', kind: 'prompt' });
    await until((text) => text.includes('thinking…'));
    keys.write('queued message\r');
    await until((text) => text.includes('⧗ queued: queued message'));
    client.queued_texts = ['queued message'];
    keys.write('\u001B');
    await vi.waitFor(() => expect(client.calls_of('interrupt')).toEqual([['session-1']]));
    expect(client.calls_of('abort')).toEqual([]);
    emit('turn.completed', { ...T, stop_reason: 'aborted', usage, final: null, turns_used: 1 });
    await until((text) => text.includes('› queued message') && !text.includes('⧗ queued'));
    expect(client.calls_of('prompt')).toEqual([]);
  });

  it('echoes a slash command with its words, and /help lists one style in aligned columns (C10, C23)', async () => {
    const { until, keys, vt } = await mount({ columns: 100 });
    keys.write('/model plainname\r');
    await until(
      (text) => text.includes('/model plainname') && text.includes('ran /model plainname'),
    );
    keys.write('/help\r');
    await until((text) => text.includes('/steer <text>'));
    // the command's output is indented under its echo
    const lines = vt
      .text()
      .split('\n')
      .map((line) => line.replace(/^ {2}/, '').trimEnd());
    const row = (name: string) => lines.find((line) => line.startsWith(`/${name} `)) ?? '';
    const column = (line: string) => line.search(/ {2}\S/);
    const steer = row('steer');
    const clear = row('clear');
    expect(steer).toMatch(/^\/steer <text> +send text into the run in flight$/);
    expect(column(steer)).toBe(column(clear));
    for (const line of lines.filter((entry) => entry.startsWith('/'))) {
      expect(line).not.toMatch(/\.$/);
      expect(line).not.toMatch(/ {2}[A-Z][a-z]/);
    }
  });

  it('takes a bracketed paste whole: its newlines do not submit', async () => {
    const { until, keys, client } = await mount();
    keys.write('\u001B[200~first line\rsecond line\u001B[201~');
    await until((text) => text.includes('second line'));
    expect(client.calls_of('prompt')).toEqual([]);
    keys.write('\r');
    await vi.waitFor(() => expect(client.calls_of('prompt')).toHaveLength(1));
    expect(client.calls_of('prompt')[0]?.[1]).toBe('first line\nsecond line');
  });

  it('aborts with Esc and with Ctrl+C during a run; Ctrl+C twice on an empty prompt quits', async () => {
    const { until, emit, keys, client, controller } = await mount();
    emit('turn.started', { ...T, input: 'x', kind: 'prompt' });
    await until((text) => text.includes('thinking'));
    keys.write('\u001B');
    keys.write('\u0003');
    await vi.waitFor(() => expect(client.calls_of('interrupt')).toHaveLength(2));
    emit('turn.completed', { ...T, stop_reason: 'aborted', usage, final: null, turns_used: 1 });
    await until((text) => text.includes('⊘ interrupted'));
    keys.write('\u0003');
    await until((text) => text.includes('Press Ctrl+C again to quit'));
    keys.write('\u0003');
    await expect(controller.exited).resolves.toBe(0);
  });

  it('lets a session be picked with the arrows and Enter', async () => {
    const vt = new VirtualTerminal(80, 12);
    const client = new FakeClient();
    for (const title of ['first task', 'second task']) {
      const session = await client.create();
      client.sessions.set(session.session_id, { ...session, title });
    }
    const store = create_store({ frame_ms: 5 });
    const controller = new TuiController(client, store);
    const keys = manual_keys();
    const instance = render(
      <App
        controller={controller}
        keys={keys}
        palette={make_palette({ color: false, plain: true })}
      />,
      {
        stdout: vt.stdout,
        stdin: new PassThrough() as unknown as NodeJS.ReadStream,
        patchConsole: false,
      },
    );
    mounted.push(() => {
      instance.unmount();
      vt.dispose();
    });
    const started = controller.start({ kind: 'pick' });
    await vi.waitFor(async () => {
      await vt.settle();
      expect(vt.text()).toContain('Resume which session?');
    });
    expect(vt.text()).toMatch(/› second task · 2026-01-01 00:00 · fake-model · ession-2/);
    keys.write('\u001B[B');
    keys.write('\r');
    await started;
    expect(store.get_state().session?.session_id).toBe('session-1');
  });

  it('stays readable at 60 columns', async () => {
    const { until, emit, vt } = await mount({ columns: 60 });
    emit('usage.update', {
      ...T,
      usage,
      usage_total: usage,
      context_tokens: 5000,
      context_window: 100_000,
    });
    emit('turn.started', {
      ...T,
      input: 'a question long enough to need wrapping at sixty columns wide',
      kind: 'prompt',
    });
    emit('message.delta', {
      ...T,
      text: `| column one | column two |\n|---|---|\n| ${'word '.repeat(10)}| ${'more '.repeat(8)}|\n\nafter`,
    });
    emit('tool.start', {
      ...T,
      tool_call_id: 'c',
      name: 'read_file',
      args: { path: `src/${'deep/'.repeat(20)}file.ts` },
    });
    await until((text) => text.includes('ctx 5%'));
    await until((text) => text.includes('read_file src/deep'));
    for (const line of vt.all()) expect(line.length).toBeLessThanOrEqual(60);
  });

  it('keeps scrollback when the terminal is resized; only the live region is redrawn', async () => {
    const { until, emit, vt, keys } = await mount({ columns: 80, rows: 12 });
    emit('turn.started', { ...T, input: 'q', kind: 'prompt' });
    emit('message.delta', { ...T, text: 'The earlier answer, kept in scrollback.' });
    emit('turn.completed', { ...T, stop_reason: 'final', usage, final: null, turns_used: 1 });
    await until((text) => text.includes('The earlier answer'));
    keys.write('draft');
    await until((text) => text.includes('› draft'));
    vt.resize(60, 10);
    keys.write(' more');
    await until((text) => text.includes('› draft more'));
    vt.resize(100, 14);
    keys.write('!');
    await until((text) => text.includes('› draft more!'));
    const all = vt.text();
    expect(count(all, 'The earlier answer, kept in scrollback.')).toBe(1);
    expect(vt.cleared()).toBe(false);
  });

  it('writes no colour under NO_COLOR, and colour otherwise', async () => {
    const plain = await mount({ color: false });
    plain.emit('turn.started', { ...T, input: 'q', kind: 'prompt' });
    plain.emit('message.delta', { ...T, text: '```js\nconst a = "x";\n```\n\nok' });
    await plain.until((text) => text.includes('const a'));
    expect(plain.vt.coloured()).toBe(false);
    const coloured = await mount({ color: true });
    coloured.emit('turn.started', { ...T, input: 'q', kind: 'prompt' });
    coloured.emit('message.delta', { ...T, text: '```js\nconst a = "x";\n```\n\nok' });
    await coloured.until((text) => text.includes('const a'));
    expect(coloured.vt.coloured()).toBe(true);
    expect(coloured.vt.writes.join('')).toContain('\u001B[35mconst');
  });
});
