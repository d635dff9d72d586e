import type { CliIo, Command, CommandContext } from './context.js';
import { EXIT } from './exit_codes.js';
import { COMMANDS, type CommandName, help_text, usage_line } from './help.js';
import { clear_status_line } from './status_line.js';
import { stdin_kind } from './stdin_kind.js';
import { make_style } from './style.js';
import { UsageError } from './usage_error.js';

/** Loads one command's module; nothing else is imported until a command is chosen. */
const LOADERS: Record<CommandName, () => Promise<Command>> = {
  run: async () => (await import('./commands/run.js')).command_run,
  chat: async () => (await import('./commands/chat.js')).command_chat,
  tui: async () => (await import('./commands/tui.js')).command_tui,
  serve: async () => (await import('./commands/serve.js')).command_serve,
  sessions: async () => (await import('./commands/sessions.js')).command_sessions,
  usage: async () => (await import('./commands/usage.js')).command_usage,
  rewind: async () => (await import('./commands/rewind.js')).command_rewind,
  checkpoints: async () => (await import('./commands/checkpoints.js')).command_checkpoints,
  mcp: async () => (await import('./commands/mcp.js')).command_mcp,
  init: async () => (await import('./commands/init.js')).command_init,
  config: async () => (await import('./commands/config.js')).command_config,
  update: async () => (await import('./commands/update.js')).command_update,
  acp: async () => (await import('./commands/acp.js')).command_acp,
  gateway: async () => (await import('./commands/gateway.js')).command_gateway,
  sandbox: async () => (await import('./commands/sandbox.js')).command_sandbox,
  skills: async () => (await import('./commands/skills.js')).command_skills,
  trust: async () => (await import('./commands/trust.js')).command_trust,
  untrust: async () => (await import('./commands/trust.js')).command_untrust,
  db: async () => (await import('./commands/db.js')).command_db,
  completion: async () => (await import('./commands/completion.js')).command_completion,
  help: async () => command_help,
};

const command_help: Command = async (context) => {
  const topic = context.argv[0];
  if (topic === '--help' || topic === '-h') {
    context.io.stdout.write(`${help_text('help')}\n`);
    return EXIT.OK;
  }
  if (topic === undefined) {
    context.io.stdout.write(`${help_text('main')}\n`);
    return EXIT.OK;
  }
  if (!(COMMANDS as readonly string[]).includes(topic)) {
    throw new UsageError(`no help for '${topic}': not a command`, 'help', {
      word: topic,
      candidates: COMMANDS,
    });
  }
  context.io.stdout.write(`${help_text(topic as CommandName)}\n`);
  return EXIT.OK;
};

function make_context(argv: readonly string[], io: CliIo): CommandContext {
  const err = make_style(io.stderr, io.env);
  return {
    argv,
    io,
    out: make_style(io.stdout, io.env),
    err,
    say: (text) => {
      clear_status_line();
      io.stderr.write(`${text}\n`);
    },
    warn: (text) => {
      clear_status_line();
      io.stderr.write(`${err.yellow('lich: warning:')} ${text}\n`);
    },
  };
}

/**
 * Picks the command from the arguments. The grammar, decided once:
 * - the first word that is not an option names the command when it is one, wherever the options
 *   stand (`lich -C dir sessions list` is `lich sessions list -C dir`);
 * - a bare word that is not a command but close to one (`sesions`, `chats`) or reserved for a
 *   later command is refused as an unknown command with the nearest spelling: it is not
 *   sent to the model;
 * - anything else is a task: `lich "fix the tests"`, `lich fix the tests`, `lich p`. A task that
 *   starts with a command's name is given quoted with more words, or after `lich run`.
 */
async function choose(
  argv: readonly string[],
): Promise<{ command: CommandName; rest: readonly string[] }> {
  const { first_word_index, is_command, looks_like_command } = await import('./command_words.js');
  const index = first_word_index(argv);
  const word = index === -1 ? undefined : (argv[index] as string);
  if (word === undefined) return { command: 'run', rest: argv };
  if (is_command(word)) {
    return { command: word, rest: [...argv.slice(0, index), ...argv.slice(index + 1)] };
  }
  const near = await looks_like_command(word);
  if (near !== undefined) {
    const task = argv.slice(index).join(' ');
    throw new UsageError(
      `unknown command '${word}' (to give it to the model as a task: lich run "${task}")`,
      undefined,
      { word, candidates: COMMANDS },
    );
  }
  return { command: 'run', rest: argv };
}

async function suggestion(error: UsageError): Promise<string> {
  if (!error.suggest) return '';
  const { nearest_word } = await import('@lich/agent');
  const found = nearest_word(error.suggest.word, error.suggest.candidates);
  return found === undefined ? '' : `\ndid you mean '${error.suggest.prefix ?? ''}${found}'?`;
}

/**
 * Runs `lich` with `argv` (the arguments after the executable) and resolves with the exit code:
 * 0 success, 1 model or provider failure, 2 usage or config error, 130 aborted (Ctrl+C), 143
 * terminated (SIGTERM). Prints errors on
 * stderr in one or two lines; never rejects.
 */
export async function main(argv: readonly string[], io?: Partial<CliIo>): Promise<number> {
  const own_stdin = io?.stdin === undefined;
  const full_io: CliIo = {
    // created on first use: most runs only need to know what stdin is (see `stdin_kind`)
    get stdin() {
      return io?.stdin ?? process.stdin;
    },
    ...(own_stdin ? { stdin_fd: 0 } : {}),
    stdout: io?.stdout ?? process.stdout,
    stderr: io?.stderr ?? process.stderr,
    env: io?.env ?? process.env,
    cwd: io?.cwd ?? process.cwd(),
  };
  if (io?.stdout === undefined) {
    // `lich "task" | head -1`: the reader left; stop quietly rather than with an EPIPE trace.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    });
  }
  const context = make_context(argv, full_io);
  try {
    if (argv.length === 0) {
      const kind = await stdin_kind(full_io);
      if (kind === 'tty') {
        const { open_interactive } = await import('./interactive.js');
        return await open_interactive(make_context([], full_io));
      }
      if (full_io.env.LICH_NO_STDIN !== '1' && kind === 'data') {
        return await (await LOADERS.run())(make_context([], full_io));
      }
      full_io.stderr.write(`${help_text('main')}\n`);
      return EXIT.USAGE;
    }
    if (argv[0] === '--help' || argv[0] === '-h') {
      full_io.stdout.write(`${help_text('main')}\n`);
      return EXIT.OK;
    }
    if (argv[0] === '__complete') {
      // what the scripts of `lich completion` call at each Tab: one candidate a line
      const { complete_words } = await import('./complete_words.js');
      const found = complete_words(argv.slice(1), full_io.cwd);
      const described = full_io.env.LICH_COMPLETE_DESCRIPTIONS === '1';
      const lines =
        typeof found === 'string'
          ? [found]
          : found.map(({ word, description }) =>
              described && description ? `${word}\t${description}` : word,
            );
      full_io.stdout.write(lines.length === 0 ? '' : `${lines.join('\n')}\n`);
      return EXIT.OK;
    }
    if (argv[0] === '--version' || argv[0] === '-V') {
      const { version } = await import('./version.js');
      full_io.stdout.write(`${version()}\n`);
      return EXIT.OK;
    }
    const { command, rest } = await choose(argv);
    const run = await LOADERS[command]();
    return await run(make_context(rest, full_io));
  } catch (error) {
    if (error instanceof UsageError) {
      context.say(`${context.err.red('lich:')} ${error.message}${await suggestion(error)}`);
      context.say(usage_line((error.command as CommandName | undefined) ?? 'main'));
      return EXIT.USAGE;
    }
    const text = error instanceof Error ? error.message : String(error);
    context.say(`${context.err.red('lich:')} ${text}`);
    if (full_io.env.LICH_DEBUG && error instanceof Error && error.stack) context.say(error.stack);
    return EXIT.FAILURE;
  }
}
