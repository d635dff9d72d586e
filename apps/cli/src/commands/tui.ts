import type { ApprovalMode } from '@lich/agent';
import type { OpenSession, TuiClient } from '@lich/tui';
import { AGENT_OPTIONS, type ParsedValues, parse_command_args, string_option } from '../args.js';
import { load_cli_config } from '../cli_config.js';
import type { Command, CommandContext } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { make_style } from '../style.js';
import { UsageError } from '../usage_error.js';
import { version } from '../version.js';

/** The options of `lich tui`: the agent's, and which session to open and how. */
export const TUI_OPTIONS = {
  ...AGENT_OPTIONS,
  continue: { type: 'boolean', short: 'c' },
  resume: { type: 'string' },
  connect: { type: 'boolean' },
} as const;

const MODES: readonly ApprovalMode[] = ['default', 'auto_edit', 'plan', 'yolo'];

/** How long a leaving TUI lets the process wind down before it exits regardless. */
const EXIT_WATCHDOG_MS = 1500;
/**
 * How long after the first frame the TUI bundle's code cache is written: soon, so a session that
 * ends without `/quit` (a closed terminal, a kill) still leaves the next start compiled, and not
 * at once, so the write never holds up the first frame or the first keys.
 */
const CODE_CACHE_SAVE_MS = 1000;

/** The options that `lich serve --stdio` takes from `lich tui --connect`, passed on as given. */
const SERVE_PASSED = [
  'work-dir',
  'config',
  'provider',
  'model',
  'base-url',
  'max-turns',
  'system-prompt',
  'append-system-prompt',
  'allowed-tools',
  'disallowed-tools',
] as const;

/**
 * `argv` with a `--resume` that has no value (last, or followed by another option) written
 * `--resume=`: `parseArgs` has no optional values, and `--resume` alone asks for the picker.
 */
function with_optional_resume(argv: readonly string[]): string[] {
  return argv.map((token, index) => {
    if (token !== '--resume') return token;
    const next = argv[index + 1];
    return next === undefined || next.startsWith('-') ? '--resume=' : token;
  });
}

/** Which session to open, from `--continue` and `--resume [id]`. */
function open_session(values: ParsedValues): OpenSession {
  const resume = string_option(values.resume);
  if (values.continue === true && resume !== undefined) {
    throw new UsageError('--continue and --resume cannot be used together', 'tui');
  }
  if (values.continue === true) return { kind: 'continue' };
  if (resume === undefined) return { kind: 'new' };
  return resume === '' ? { kind: 'pick' } : { kind: 'resume', session_id: resume };
}

function approval_mode(values: ParsedValues): ApprovalMode | undefined {
  const flag = values['approval-mode'];
  if (flag !== undefined && (typeof flag !== 'string' || !MODES.includes(flag as ApprovalMode))) {
    throw new UsageError(
      `--approval-mode must be one of ${MODES.join(', ')}, got '${String(flag)}'`,
      'tui',
    );
  }
  if (values.yolo === true && flag !== undefined && flag !== 'yolo') {
    throw new UsageError(`--yolo and --approval-mode ${String(flag)} contradict each other`, 'tui');
  }
  return values.yolo === true ? 'yolo' : (flag as ApprovalMode | undefined);
}

/** The arguments of the `lich serve --stdio` that `--connect` starts. */
function serve_args(values: ParsedValues): string[] {
  const args = ['serve', '--stdio'];
  for (const name of SERVE_PASSED) {
    const value = values[name];
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string') args.push(`--${name}=${item}`);
    }
  }
  // the child is off a terminal: it trusts the folder only when told
  if (values.trust === true) args.push('--trust');
  return args;
}

/**
 * Whether the folder is trusted (`resolve_folder_trust`), asked on the terminal before the screen
 * is up; a trusted folder's hooks and the like are named on the screen when it comes up.
 */
async function trust_before_screen(
  context: CommandContext,
  values: ParsedValues,
  lines: ScreenLines,
): Promise<boolean> {
  const quiet = { ...context, say: () => undefined, warn: () => undefined };
  const loaded = await load_cli_config(quiet, 'tui', values, { agent_flags: true });
  if (loaded === null) return values.trust === true;
  const { resolve_folder_trust } = await import('../folder_trust.js');
  const trusted = await resolve_folder_trust(context, loaded.config, values.trust === true);
  if (trusted) {
    const { repository_runnables } = await import('@lich/agent');
    for (const line of await repository_runnables(loaded.config, context.io.env)) {
      lines.say('info', `trusted folder: ${line}`);
    }
  }
  return trusted;
}

/** Lines said while the screen is not up yet wait for it; then they become notices on it. */
class ScreenLines {
  private notice: ((level: 'info' | 'warn' | 'error', text: string) => void) | null = null;
  private waiting: { level: 'info' | 'warn' | 'error'; text: string }[] = [];

  say(level: 'info' | 'warn' | 'error', text: string): void {
    if (this.notice === null) this.waiting.push({ level, text });
    else this.notice(level, text);
  }

  attach(notice: (level: 'info' | 'warn' | 'error', text: string) => void): void {
    this.notice = notice;
    for (const line of this.waiting.splice(0)) notice(line.level, line.text);
  }
}

/**
 * A context for loading the config and building the agent while the TUI owns the terminal:
 * what would go to stderr becomes lines on the screen, uncoloured.
 */
function screen_context(context: CommandContext, lines: ScreenLines): CommandContext {
  const plain = make_style(context.io.stderr, { NO_COLOR: '1' });
  return {
    ...context,
    err: plain,
    out: plain,
    say: (text) => lines.say(/^lich: /.test(text) ? 'error' : 'info', text.replace(/^lich: /, '')),
    warn: (text) => lines.say('warn', text),
  };
}

/** What the in-process backend failed with, so the command can exit as `lich "task"` would. */
class OpenFailure extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** The in-process backend: the config, an `Agent`, and a `SessionHost` over it. */
async function open_local(
  context: CommandContext,
  values: ParsedValues,
  tui: typeof import('@lich/tui'),
  trusted: boolean,
): Promise<TuiClient> {
  const loaded = await load_cli_config(context, 'tui', values, {
    detect_providers: true,
    agent_flags: true,
  });
  if (loaded === null) throw new OpenFailure('the config could not be loaded', EXIT.USAGE);
  const { Agent, create_session_host, missing_api_keys } = await import('@lich/agent');
  const { config } = loaded;
  if (config.providers.length === 0) {
    const { NO_PROVIDER_MESSAGE } = await import('../no_provider.js');
    throw new OpenFailure(NO_PROVIDER_MESSAGE.join('\n'), EXIT.USAGE);
  }
  for (const warning of missing_api_keys(config.providers, context.io.env)) context.warn(warning);
  const agent = new Agent({
    config,
    env: context.io.env,
    trusted,
    lich_version: version(),
    on_warning: (text) => context.warn(text),
  });
  const host = create_session_host({ agent, on_warning: (text) => context.warn(text) });
  const client = tui.create_host_client(host);
  return {
    ...client,
    get epoch() {
      return client.epoch;
    },
    async close() {
      await client.close();
      await agent.close();
    },
  };
}

/** The backend in a supervised `lich serve --stdio` child process (`--connect`). */
async function open_serve(
  context: CommandContext,
  values: ParsedValues,
  tui: typeof import('@lich/tui'),
): Promise<TuiClient> {
  let stderr_tail = '';
  const script = process.argv[1];
  if (script === undefined) throw new OpenFailure('cannot tell how lich was started', EXIT.FAILURE);
  try {
    return await tui.create_serve_client({
      spawn: {
        command: process.execPath,
        args: [script, ...serve_args(values)],
        cwd: context.io.cwd,
        env: context.io.env,
        on_stderr: (text) => {
          stderr_tail = (stderr_tail + text).slice(-2000);
        },
      },
      version: version(),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const said = stderr_tail.trim().replace(/^lich: /gm, '');
    throw new OpenFailure(
      `lich serve --stdio did not start: ${said === '' ? reason : said}`,
      EXIT.FAILURE,
    );
  }
}

/**
 * `lich tui [--continue | --resume [id]] [--connect]`, and `lich` alone on a terminal: the
 * full-screen conversation. The screen is drawn first, with the prompt ready; the config, the
 * agent and its host (or the `lich serve --stdio` child) are made behind it. Resolves with 0 when
 * the person leaves, 2 for a config without a provider, 1 when the session cannot be opened.
 */
export const command_tui: Command = async (context) => {
  const parsed = parse_command_args('tui', with_optional_resume(context.argv), TUI_OPTIONS);
  const { positionals } = parsed;
  let { values } = parsed;
  if (values.help) {
    context.io.stdout.write(`${help_text('tui')}\n`);
    return EXIT.OK;
  }
  const open = open_session(values);
  const mode = approval_mode(values);
  const { stdin_kind } = await import('../stdin_kind.js');
  if (context.io.stdout.isTTY !== true || (await stdin_kind(context.io)) !== 'tty') {
    throw new UsageError(
      'lich tui needs a terminal (for a pipe: lich chat, or lich "task")',
      'tui',
    );
  }
  const { resolve } = await import('node:path');
  const work_dir = resolve(context.io.cwd, string_option(values['work-dir']) ?? '.');
  const { load_tui } = await import('../tui_module.js');
  const loaded = await load_tui(context.io.env);
  const { tui } = loaded;
  if (context.io.env.LICH_DEBUG) context.say(`lich: the TUI loaded from its ${loaded.from}`);

  const lines = new ScreenLines();
  // asked before the screen is up: the question needs the terminal to itself
  const trusted = await trust_before_screen(context, values, lines);
  if (trusted) values = { ...values, trust: true };
  const inner = screen_context(context, lines);
  let failure: OpenFailure | null = null;
  const connect = values.connect === true;
  const client = tui.deferred_client(
    () =>
      (connect ? open_serve(inner, values, tui) : open_local(inner, values, tui, trusted)).catch(
        (error: unknown) => {
          if (error instanceof OpenFailure) failure = error;
          throw error;
        },
      ),
    connect ? 'serve' : 'local',
  );
  const code = await tui.run_tui({
    client,
    open,
    work_dir,
    env: context.io.env,
    show_reasoning: values['show-reasoning'] === true,
    // `lich tui "task"`: the TUI opens and runs the task, as `claude "task"` does
    ...(positionals.length > 0 ? { prompt: positionals.join(' ') } : {}),
    ...(mode === undefined ? {} : { approval_mode: mode }),
    on_start: (screen) => lines.attach((level, text) => screen.notice(level, text)),
    on_first_frame: () => {
      setTimeout(() => loaded.save_cache(), CODE_CACHE_SAVE_MS).unref();
    },
  });
  loaded.save_cache(); // what the timer did not write (a no-op when it did)
  // The terminal is restored and the backend told to stop; a handle something left open (a
  // keep-alive socket, a child slow to die) must not keep a person who typed /quit waiting.
  const final = (failure as OpenFailure | null)?.code ?? code;
  setTimeout(() => process.exit(final), EXIT_WATCHDOG_MS).unref();
  return final;
};
