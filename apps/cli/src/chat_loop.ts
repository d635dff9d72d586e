import { createInterface } from 'node:readline';
import type { Agent } from '@lich/agent';
import type { Message } from '@lich/core';
import type { SessionHandle } from '@lich/session';
import { cli_approval } from './approval.js';
import { type ChatState, run_chat_command } from './chat_commands.js';
import { interactive_rewind } from './chat_rewind.js';
import type { CommandContext } from './context.js';
import { execute_task } from './execute_task.js';
import { EXIT } from './exit_codes.js';
import type { OutputSettings } from './output_settings.js';
import { reading_session, resolve_session, short_id } from './session_ids.js';

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
    const model = command.model ?? state.model;
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
      ...(model === undefined ? {} : { model }),
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
    // pictures are kept by hash beside the transcript: read their bytes back
    const history = (await store.load_images(conversation_of(session.state))).filter(
      (message) => message.role !== 'system',
    );
    context.say(
      context.err.dim(`resumed session ${short_id(summary.id)} (${history.length} messages)`),
    );
    return { session, history };
  }
  if (options.no_session) return { session: null, history: [] };
  return { session: await agent.create_session(), history: [] };
}
