/**
 * Runs the TUI on a terminal until the person leaves: draws the first frame with the prompt at
 * once, opens the session behind it, and on the way out restores the terminal and closes the
 * client (and the backend it started).
 */
import type { ApprovalMode } from '@lich/agent';
import { render } from 'ink';
import { App } from './app.js';
import type { TuiClient } from './client.js';
import { type OpenSession, TuiController } from './controller.js';
import { index_files } from './file_index.js';
import { frame_writes } from './frame_writes.js';
import { append_history, history_path, read_history } from './input_history.js';
import { make_palette, wants_color } from './palette.js';
import { picture_paste } from './picture_paste.js';
import { SCREEN_OPTIONS } from './screen_options.js';
import { initial_state } from './state.js';
import { create_store } from './store.js';
import { attach_terminal, type KeySource } from './terminal_input.js';
import { terminal_reflows } from './terminal_reflows.js';

type TtyOut = NodeJS.WriteStream;
type TtyIn = NodeJS.ReadStream;

/** How `run_tui` is started. */
export interface RunTuiOptions {
  /** The backend: `create_host_client(host)` or `create_serve_client(...)`. */
  client: TuiClient;
  /** Which session to open; a new one by default. */
  open?: OpenSession;
  work_dir: string;
  env?: Readonly<Record<string, string | undefined>>;
  stdin?: TtyIn;
  stdout?: TtyOut;
  /** Keys from somewhere else than `stdin` (benches and tests). */
  keys?: KeySource;
  /** Where the input history is kept; null keeps none. Default: `<work_dir>/.lich/tui_history.jsonl`. */
  history_file?: string | null;
  /** Reasoning shown in full from the start. */
  show_reasoning?: boolean;
  /** A first prompt, submitted once the session is open (`lich tui "task"`). */
  prompt?: string;
  /** The approval mode new sessions start in (the host's default when absent). */
  approval_mode?: ApprovalMode;
  /**
   * How long leaving waits for the client to close (the host to stop its runs, the backend
   * process to end) after the terminal is restored; 3 s by default. Past it `run_tui` resolves
   * anyway: a backend slow to stop never keeps the person at a dead screen.
   */
  close_deadline_ms?: number;
  /** Called once the first frame is on screen (for the start-up bench). */
  on_first_frame?: () => void;
  /** Called once the screen is up, with a way to show lines on it (warnings of the caller). */
  on_start?: (screen: { notice(level: 'info' | 'warn' | 'error', text: string): void }) => void;
}

/**
 * Runs the TUI and resolves with the exit code: 0 when the person leaves (`/quit`, Ctrl+C twice,
 * Ctrl+D), 1 when the session cannot be opened or the backend fails for good, 129/143 on
 * SIGHUP/SIGTERM. Contract: the terminal is restored (raw mode and bracketed paste off, cursor
 * shown) and the client closed before it resolves; it never rejects.
 */
export async function run_tui(options: RunTuiOptions): Promise<number> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const env = options.env ?? process.env;
  const palette = make_palette({ color: wants_color(env) && stdout.isTTY === true });
  const store = create_store({
    initial: initial_state({ reasoning_expanded: options.show_reasoning === true }),
  });
  const controller = new TuiController(
    options.client,
    store,
    options.approval_mode === undefined ? {} : { approval_mode: options.approval_mode },
  );
  const terminal = options.keys === undefined ? attach_terminal(stdin, stdout) : null;
  const keys = options.keys ?? terminal!;
  const history_file =
    options.history_file === undefined ? history_path(options.work_dir) : options.history_file;

  const history = history_file === null ? [] : await read_history(history_file);
  const files = index_files(options.work_dir);
  const on_signal = (code: number) => () => controller.exit(code);
  const on_hangup = on_signal(129);
  const on_term = on_signal(143);
  process.on('SIGHUP', on_hangup);
  process.on('SIGTERM', on_term);

  let first = true;
  /** Resolves at the next frame ink draws (how leaving knows its last frame is on screen). */
  let on_next_frame: (() => void) | undefined;
  const instance = render(
    <App
      controller={controller}
      keys={keys}
      palette={palette}
      history={history}
      files={files.files}
      paste_text={(text) => picture_paste(text, options.work_dir) ?? text}
      {...(history_file === null
        ? {}
        : { on_history: (entry: string) => void append_history(history_file, entry) })}
    />,
    {
      // each frame is one write to the terminal
      stdout: frame_writes(stdout),
      stdin,
      ...SCREEN_OPTIONS,
      // where the terminal re-wraps lines on narrowing, the last frame is erased as it now lies
      // (an option of the ink patch, `patches/ink@6.8.0.patch`)
      ...{ reflowingTerminal: terminal_reflows(process.env) },
      patchConsole: true,
      onRender: () => {
        on_next_frame?.();
        on_next_frame = undefined;
        if (!first) return;
        first = false;
        options.on_first_frame?.();
      },
    },
  );

  options.on_start?.({ notice: (level, text) => store.dispatch({ type: 'notice', level, text }) });
  controller
    .start(options.open ?? { kind: 'new' })
    .then(() => {
      const first = options.prompt?.trim() ?? '';
      if (first !== '') return controller.submit(first, { steer: false });
    })
    .catch((error: unknown) => {
      const text = error instanceof Error ? error.message : String(error);
      store.dispatch({
        type: 'notice',
        level: 'error',
        text: `could not open the session: ${text}`,
      });
      // "no such session" is a usage error everywhere (exit 2), as for lich sessions show
      const code = (error as { code?: unknown; data?: { name?: unknown } }).code;
      const name = (error as { data?: { name?: unknown } }).data?.name;
      controller.exit(code === 'unknown_session' || name === 'unknown_session' ? 2 : 1);
    });

  const code = await controller.exited;
  // The terminal first: whatever the backend does next, the person gets their shell back.
  try {
    store.flush();
    // the last frame takes the prompt and the status line away; the transcript stays above.
    // It is drawn before unmounting, or the frame before it (a "Press Ctrl+C again" hint, a
    // "starting…" status) would stay on screen (C20).
    const left = new Promise<void>((resolve) => {
      on_next_frame = resolve;
      setTimeout(resolve, 250).unref?.();
    });
    store.dispatch({ type: 'leave' });
    await left;
    instance.unmount();
    await instance.waitUntilExit().catch(() => undefined);
  } finally {
    terminal?.detach();
    process.off('SIGHUP', on_hangup);
    process.off('SIGTERM', on_term);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, options.close_deadline_ms ?? 3000);
    timer.unref?.();
  });
  await Promise.race([controller.close().catch(() => undefined), deadline]);
  clearTimeout(timer);
  return code;
}
