import { createInterface } from 'node:readline';
import type { Agent } from '@lich/agent';
import type { Message } from '@lich/core';
import type { SessionHandle } from '@lich/session';
import { cli_approval } from '../approval.js';
import {
  AGENT_OPTIONS,
  CONTINUE_OPTIONS,
  check_session_flags,
  OUTPUT_OPTIONS,
  parse_command_args,
  string_option,
} from '../args.js';
import { type ChatState, run_chat_command } from '../chat_commands.js';
import { interactive_rewind } from '../chat_rewind.js';
import { load_cli_config, model_given } from '../cli_config.js';
import type { Command, CommandContext } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { type OutputSettings, output_settings } from '../output_settings.js';
import { newest_session, reading_session, resolve_session, short_id } from '../session_ids.js';
import { execute_task, make_agent, report_no_provider } from './run.js';

/** What a chat starts from. */
export interface ChatStart {
  agent: Agent;
  session: SessionHandle | null;
  history: Message[];
  show_reasoning: boolean;
  /** `--approval-mode` and `--yolo` as given. */
  approval_flags?: { 'approval-mode'?: unknown; yolo?: unknown };
  /** `-q` and `-v` (a chat prints text). */
  output?: OutputSettings;
}

const EXIT_WORDS = new Set(['exit', 'quit']);

function set_raw_mode(stream: NodeJS.ReadableStream & { isTTY?: boolean }, raw: boolean): void {
  const tty = stream as { isTTY?: boolean; setRawMode?: (mode: boolean) => void };
  if (tty.isTTY === true && typeof tty.setRawMode === 'function') tty.setRawMode(raw);
}

/**
 * The REPL: one line in, one answer out, the history kept across turns and recorded into one
 * session. Slash commands (`/help`, `/clear`, `/model`, `/compact`, `/sessions`, plugins' ones)
 * run from the agent's command registry and `/exit` here (`chat_commands.ts`), never sent. Ends at `/exit` or the end of the input; Ctrl+C aborts the
 * answer being written (through a pipe it also ends the chat, with 130), and at the prompt
 * leaves; SIGTERM ends it with 143. Resolves with 0, or 1 when a turn failed.
 */
export async function chat_loop(context: CommandContext, start: ChatStart): Promise<number> {
  const { stdin, stderr } = context.io;
  const interactive = stdin.isTTY === true;
  // plugins' slash commands are listed from the first line on (loaded before readline starts
  // reading, so no line is lost); a plugin that does not load fails the first run, as before
  await start.agent.prepare_plugins().catch(() => undefined);
  const lines = createInterface({
    input: stdin,
    output: interactive ? stderr : undefined,
    terminal: interactive,
    prompt: interactive ? `${context.err.bold('›')} ` : '',
  });
  let history = start.history;
  let failed = false;
  let interrupted = false;
  lines.on('SIGINT', () => {
    interrupted = true;
    lines.close();
  });

  const approval = await cli_approval(
    context,
    start.approval_flags ?? {},
    start.agent.config,
    'chat',
  );
  if (interactive) {
    const session = start.session ? `; session ${start.session.id}` : '';
    context.say(context.err.dim(`lich chat — /exit to leave${session}`));
    lines.prompt();
  }
  const state: ChatState = {
    agent: start.agent,
    history,
    model: undefined,
    session_id: start.session?.id ?? null,
    session: start.session,
    say: (text) => context.say(text),
  };
  let stopped_by: number | undefined;
  for await (const raw of lines) {
    const trimmed = raw.trim();
    if (trimmed === '') {
      if (interactive) lines.prompt();
      continue;
    }
    if (EXIT_WORDS.has(trimmed)) break;
    state.history = history;
    lines.pause();
    if (interactive && /^\/rewind\s*$/i.test(trimmed)) {
      // the picker asks its questions through the chat's readline: an answer is not a message
      const ask_text = (question: string) =>
        new Promise<string | null>((resolve) => {
          lines.question(question, (answer) => resolve(answer));
        });
      const back = await interactive_rewind(state, ask_text);
      history = state.history;
      lines.resume();
      lines.prompt();
      // a rewound prompt comes back at the prompt, to send again or edit
      if (back !== null) lines.write(back);
      continue;
    }
    const command = await run_chat_command(trimmed, state);
    history = state.history;
    if (command.handled) {
      if (command.exit) break;
      lines.resume();
      if (interactive) lines.prompt();
      continue;
    }
    const line = command.text;
    // At the prompt the terminal is in raw mode and readline turns Ctrl+C into its own event;
    // while the answer runs, cooked mode lets Ctrl+C raise SIGINT, which aborts the run.
    lines.pause();
    set_raw_mode(stdin, false);
    const outcome = await execute_task(context, {
      agent: start.agent,
      input: line,
      history,
      session: start.session,
      output: start.output ?? { format: 'text', quiet: false, verbose: false },
      show_reasoning: start.show_reasoning,
      approval,
      ...(state.model === undefined ? {} : { model: state.model }),
    });
    if (outcome.transcript) history = outcome.transcript;
    if (outcome.code === EXIT.FAILURE || outcome.code === EXIT.USAGE) failed = true;
    // Ctrl+C on a terminal stops the answer and the chat goes on; through a pipe (nobody at a
    // prompt to go back to) and on SIGTERM, it stops the chat.
    if (outcome.code === EXIT.TERMINATED || (outcome.code === EXIT.ABORTED && !interactive)) {
      stopped_by = outcome.code;
      break;
    }
    set_raw_mode(stdin, interactive);
    lines.resume();
    // a blank line between the answer and the next prompt
    if (interactive) {
      stderr.write('\n');
      lines.prompt();
    }
  }
  lines.close();
  // leaving with Ctrl+C or Ctrl+D: the shell's prompt starts on a line of its own
  if (interactive) stderr.write('\n');
  if (stopped_by !== undefined) return stopped_by;
  if (interrupted) return EXIT.ABORTED;
  return failed ? EXIT.FAILURE : EXIT.OK;
}

/** Opens the chat's session: the resumed one (with its history), a new one, or none. */
export async function open_chat_session(
  context: CommandContext,
  agent: Agent,
  options: { resume?: string; no_session: boolean; command: string },
): Promise<{ session: SessionHandle | null; history: Message[] }> {
  if (options.resume !== undefined) {
    const summary = await resolve_session(
      agent.config.session_dir,
      options.resume,
      options.command,
      context.io.cwd,
    );
    const { SessionStore, conversation_of } = await import('@lich/session');
    const { dirname, resolve } = await import('node:path');
    const { session_store_of } = await import('@lich/agent');
    // a session of the config's own folder is held to the work dir as new ones are
    const store =
      dirname(summary.path) === resolve(agent.config.session_dir)
        ? session_store_of(agent.config)
        : new SessionStore({ session_dir: dirname(summary.path) });
    const session = await reading_session(summary, () => store.open(summary.id));
    const history = conversation_of(session.state).filter((message) => message.role !== 'system');
    context.say(
      context.err.dim(`resumed session ${short_id(summary.id)} (${history.length} messages)`),
    );
    return { session, history };
  }
  if (options.no_session) return { session: null, history: [] };
  return { session: await agent.create_session(), history: [] };
}

/** `lich chat [--resume <id>]`. */
export const command_chat: Command = async (context) => {
  const { values, positionals } = parse_command_args('chat', context.argv, {
    ...AGENT_OPTIONS,
    ...OUTPUT_OPTIONS,
    ...CONTINUE_OPTIONS,
    resume: { type: 'string' },
  });
  if (values.help) {
    context.io.stdout.write(`${help_text('chat')}\n`);
    return EXIT.OK;
  }
  check_session_flags('chat', values);
  const { UsageError } = await import('../usage_error.js');
  const output = output_settings('chat', values);
  if (output.format !== 'text') {
    throw new UsageError(
      `chat prints text; --output-format ${output.format} is for lich "task"`,
      'chat',
    );
  }
  if (positionals.length > 0) {
    throw new UsageError(
      `chat takes no task; type it at the prompt (or: lich "${positionals.join(' ')}")`,
      'chat',
    );
  }
  const loaded = await load_cli_config(context, 'chat', values, {
    detect_providers: true,
    agent_flags: true,
  });
  if (loaded === null) return EXIT.USAGE;
  if (report_no_provider(context, loaded.config, model_given(context, values))) return EXIT.USAGE;
  const agent = await make_agent(context, loaded.config, output);
  let session: SessionHandle | null = null;
  try {
    let resume = string_option(values.resume);
    if (resume === undefined && values.continue === true) {
      resume = (await newest_session(loaded.config.session_dir))?.path;
      if (resume === undefined) {
        context.warn(`no session to continue in ${loaded.config.session_dir}; starting a new one`);
      }
    }
    const opened = await open_chat_session(context, agent, {
      ...(resume === undefined ? {} : { resume }),
      no_session: values['no-session'] === true,
      command: 'chat',
    });
    session = opened.session;
    return await chat_loop(context, {
      agent,
      session,
      history: opened.history,
      show_reasoning: values['show-reasoning'] === true,
      approval_flags: values,
      output,
    });
  } finally {
    await session?.close();
    await agent.close();
  }
};
