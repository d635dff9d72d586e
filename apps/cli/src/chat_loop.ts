import { createInterface } from 'node:readline';
import type { Agent, Approver } from '@lich/agent';
import { cli_approval } from './approval.js';
import { type ChatState, is_message, run_chat_command, steer_text } from './chat_commands.js';
import { interactive_rewind } from './chat_rewind.js';
import { open_chat_host } from './chat_session.js';
import { ChatTurns } from './chat_turns.js';
import type { CommandContext } from './context.js';
import { EXIT } from './exit_codes.js';
import type { OutputSettings } from './output_settings.js';
import { ProgressView } from './progress.js';

/** What a chat starts from. */
export interface ChatStart {
  agent: Agent;
  /** The session to go on with, as given (`--resume`, `-c`); absent: a new one. */
  resume?: string;
  /** `--no-session`: nothing is recorded. */
  no_session: boolean;
  /** The command, for usage errors (`chat`, `run`, `sessions`). */
  command: string;
  show_reasoning: boolean;
  /** `--approval-mode` and `--yolo` as given. */
  approval_flags?: { 'approval-mode'?: unknown; yolo?: unknown };
  /** `-q` and `-v` (a chat prints text). */
  output?: OutputSettings;
}

const EXIT_WORDS = new Set(['exit', 'quit']);

/**
 * The REPL, over a session of a `SessionHost` (as the TUI runs): one line in, one answer out,
 * the history kept across turns and recorded into one session. A message typed while an answer
 * is written is queued and sent after it; `/steer <text>` puts text into the answer being
 * written (before the model's next call). Slash commands (`/help`, `/clear`, `/model`,
 * `/compact`, `/sessions`, `/rewind`, plugins' and custom ones) run from the host's registry,
 * `/exit` here (`chat_commands.ts`); a command typed during an answer waits for it. Tool calls
 * are approved with the terminal's one-key question, `allow always` holding for the session.
 * Ends at `/exit` or the end of the input; Ctrl+C aborts the answer being written and takes back
 * what was queued (through a pipe it also ends the chat, with 130), and at the prompt leaves;
 * SIGTERM ends it with 143. Resolves with 0, or 1 when a turn failed, or 2 (before the chat
 * starts) when a plugin cannot be loaded. Closes the agent.
 */
export async function chat_loop(context: CommandContext, start: ChatStart): Promise<number> {
  const { stdin, stderr } = context.io;
  const interactive = stdin.isTTY === true;
  const output = start.output ?? { format: 'text', quiet: false, verbose: false };
  const approval = await cli_approval(
    context,
    start.approval_flags ?? {},
    start.agent.config,
    start.command,
  );
  const view = new ProgressView({
    stdout: context.io.stdout,
    stderr,
    out: context.out,
    err: context.err,
    show_reasoning: start.show_reasoning,
    write_answer: true,
    quiet: output.quiet,
    verbose: output.verbose,
  });
  const ask = approval.approver;
  // the question reads keys from stdin and leaves it paused: the chat reads on after it
  const approver: Approver | undefined =
    ask === undefined
      ? undefined
      : async (request, signal) => {
          view.stop();
          try {
            return await ask(request, signal);
          } finally {
            if (interactive) stdin.resume();
          }
        };
  try {
    // a plugin that cannot be loaded would fail every message: say it once, before the chat
    await start.agent.prepare_plugins();
  } catch (error) {
    const { ConfigError } = await import('@lich/agent');
    if (!ConfigError.is_instance(error)) throw error;
    context.say(`${context.err.red('lich:')} ${error.message}`);
    return EXIT.USAGE;
  }
  const { host, session } = await open_chat_host(context, start.agent, {
    ...(start.resume === undefined ? {} : { resume: start.resume }),
    no_session: start.no_session,
    command: start.command,
    approval_mode: approval.mode,
    ...(approver === undefined ? {} : { approver }),
    restartable_stream: context.io.stdout.isTTY !== true,
  });
  try {
    const turns = new ChatTurns(context, host, session, view, {
      interactive,
      quiet: output.quiet,
      max_turns: start.agent.config.max_turns,
    });
    await host.subscribe(session.session_id, turns.listener);
    const state: ChatState = {
      host,
      session_id: session.session_id,
      say: (text) => context.say(text),
    };
    return await read_lines(context, { interactive, turns, state, recorded: session.path });
  } finally {
    await host.shutdown({ deadline_ms: 2000 });
  }
}

/** Reads the chat's lines and runs each: the loop of `chat_loop`. */
async function read_lines(
  context: CommandContext,
  chat: { interactive: boolean; turns: ChatTurns; state: ChatState; recorded: string | null },
): Promise<number> {
  const { stdin, stderr } = context.io;
  const { interactive, turns, state } = chat;
  const prompt = interactive ? `${context.err.bold('›')} ` : '';
  const lines = createInterface({
    input: stdin,
    output: interactive ? stderr : undefined,
    terminal: interactive,
    prompt,
  });
  /** Lines read and not handled yet, in order. */
  const pending: string[] = [];
  let input_ended = false;
  let interrupted = false;
  let running = false;
  let wake: (() => void) | null = null;
  const poke = () => {
    const waiting = wake;
    wake = null;
    waiting?.();
  };
  lines.on('line', (raw) => {
    const line = raw.trim();
    // while an answer is written, a message goes into the host's queue at once (and /steer into
    // the answer), unless a line before it still waits: then it waits too, in its turn
    if (running && pending.length === 0) {
      const steer = steer_text(line);
      if (steer !== null && steer !== '') {
        turns.steer(steer);
        return;
      }
      if (is_message(line) && !EXIT_WORDS.has(line)) {
        turns.send(line.startsWith('//') ? line.slice(1) : line);
        return;
      }
    }
    pending.push(raw);
    poke();
  });
  lines.on('close', () => {
    input_ended = true;
    poke();
  });
  lines.on('SIGINT', () => {
    // in raw mode Ctrl+C is readline's: during an answer it aborts it, as a SIGINT would
    if (running) {
      process.kill(process.pid, 'SIGINT');
      return;
    }
    interrupted = true;
    lines.close();
  });
  // a line typed during an answer is handled without a prompt before it: it was typed already;
  // what was typed without Enter stays, the cursor after it (`prompt()` alone would put the
  // cursor back at the start of it, and the next keys in the middle)
  const ready = () => {
    if (interactive && pending.length === 0) lines.prompt(true);
  };
  const next_line = async (): Promise<string | null> => {
    while (pending.length === 0) {
      if (input_ended) return null;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    return pending.shift() as string;
  };

  if (interactive) {
    const recorded = chat.recorded === null ? '' : `; session ${state.session_id}`;
    context.say(context.err.dim(`lich chat — /exit to leave${recorded}`));
    lines.prompt();
  }
  let stopped_by: number | undefined;
  for (;;) {
    const raw = await next_line();
    if (raw === null) break;
    const trimmed = raw.trim();
    if (trimmed === '') {
      ready();
      continue;
    }
    if (EXIT_WORDS.has(trimmed)) break;
    if (interactive && /^\/rewind\s*$/i.test(trimmed)) {
      // the picker asks its questions through the chat's readline: an answer is not a message
      const ask_text = (question: string) =>
        new Promise<string | null>((resolve) => {
          lines.question(question, (answer) => resolve(answer));
        });
      const back = await interactive_rewind(state, ask_text);
      lines.prompt();
      // a rewound prompt comes back at the prompt, to send again or edit
      if (back !== null) lines.write(back);
      continue;
    }
    const command = await run_chat_command(trimmed, state);
    if (command.handled) {
      if (command.exit) break;
      ready();
      continue;
    }
    running = true;
    lines.setPrompt('');
    turns.send(command.text);
    const settled = await turns.settle();
    running = false;
    lines.setPrompt(prompt);
    if (settled.interrupted) {
      // through a pipe (nobody at a prompt to go back to) and on SIGTERM, it stops the chat
      if (settled.code === EXIT.TERMINATED || !interactive) {
        stopped_by = settled.code;
        break;
      }
      // at a terminal, what waited comes back at the prompt, as the TUI puts it back
      const back = [...settled.taken_back, ...pending.splice(0)].map((text) => text.trim());
      stderr.write('\n');
      lines.prompt(true);
      if (back.length > 0) {
        // ahead of what is being typed, as the TUI puts it back
        const draft = lines.line;
        lines.write(null, { ctrl: true, name: 'e' });
        lines.write(null, { ctrl: true, name: 'u' });
        lines.write([...back, ...(draft === '' ? [] : [draft])].join(' '));
      }
      continue;
    }
    // a blank line between the answer and the next prompt
    if (interactive) stderr.write('\n');
    ready();
  }
  lines.close();
  // leaving with Ctrl+C or Ctrl+D: the shell's prompt starts on a line of its own
  if (interactive) stderr.write('\n');
  if (stopped_by !== undefined) return stopped_by;
  if (interrupted) return EXIT.ABORTED;
  return turns.failed ? EXIT.FAILURE : EXIT.OK;
}
