import type { CommandInfo, SessionHost } from '@lich/agent';

/** What a chat's slash command works on: the chat's session in its host. */
export interface ChatState {
  host: SessionHost;
  session_id: string;
  /** Writes a line for the person (stderr). */
  say(text: string): void;
}

/** The commands only the chat has; every other one is the host's registry's. */
const LOCAL_COMMANDS: readonly CommandInfo[] = [
  {
    name: 'steer',
    description: 'send text into the answer being written (with none: a message like any)',
    argument_hint: '<text>',
  },
  { name: 'exit', description: 'leave the chat' },
  { name: 'quit', description: 'leave the chat' },
];

/** A line that names a slash command: `/word` at its start. `//text` is text. */
const COMMAND_LINE = /^\/([A-Za-z][\w:-]*)(?:\s+(.*))?$/s;

/** The text of a `/steer` line, or null for any other line. */
export function steer_text(line: string): string | null {
  const match = /^\/steer(?:\s+(.*))?$/is.exec(line);
  return match === null ? null : (match[1] ?? '').trim();
}

/** True for a line the chat sends to the model: not empty, no slash command (`//text` is `/text`). */
export function is_message(line: string): boolean {
  return line !== '' && (!line.startsWith('/') || line.startsWith('//'));
}

/**
 * Runs `line` when it is a slash command: resolves with `{ handled: false }` for a line to send
 * to the model, else with whether to leave. `/exit` and `/quit` are the chat's own, and `/steer`
 * with no run in flight is a message like any; every other command runs from the host's command
 * registry (`/help`, `/clear`, `/compact`, `/model`, `/sessions`, `/rewind` and those plugins and
 * custom commands add), the registry every surface shares. An unknown command is answered with an
 * error line (not sent to the model). `//text` becomes the text `/text` to send. A command's
 * failure is said, never thrown.
 */
export async function run_chat_command(
  line: string,
  state: ChatState,
): Promise<{ handled: false; text: string } | { handled: true; exit: boolean }> {
  if (line.startsWith('//')) return { handled: false, text: line.slice(1) };
  const match = COMMAND_LINE.exec(line);
  if (match === null) return { handled: false, text: line };
  const name = (match[1] as string).toLowerCase();
  const args = (match[2] ?? '').trim();
  if (name === 'steer') {
    if (args !== '') return { handled: false, text: args };
    state.say('/steer needs the text to send: /steer <text>');
    return { handled: true, exit: false };
  }
  if (LOCAL_COMMANDS.some((command) => command.name === name)) {
    return { handled: true, exit: true };
  }
  if (!state.host.commands(state.session_id).some((command) => command.name === name)) {
    state.say(`unknown command /${name} (see /help; //${name} sends it as text)`);
    return { handled: true, exit: false };
  }
  try {
    const result = await state.host.run_command(state.session_id, name, args);
    if (result.output !== '') state.say(result.output);
    // a custom command's prompt goes to the model as if typed (on the command's model, which
    // the host remembers for exactly this text)
    if (result.prompt !== undefined) return { handled: false, text: result.prompt };
  } catch (error) {
    state.say(error instanceof Error ? error.message : String(error));
    return { handled: true, exit: false };
  }
  if (name === 'help') {
    for (const command of LOCAL_COMMANDS) {
      state.say(
        `/${command.name}${command.argument_hint ? ` ${command.argument_hint}` : ''}  ${command.description}`,
      );
    }
    state.say('//text sends a line that starts with a slash');
  }
  return { handled: true, exit: false };
}

/** What a one-shot task that names a slash command comes to (`task_command`). */
export type TaskCommand =
  | { kind: 'prompt'; text: string }
  | { kind: 'done'; ok: boolean; output: string };

/**
 * A one-shot task (`lich "/review src"`) that names a slash command of the host's registry runs
 * it, as the chat would: a command that makes a prompt (a custom command's template) gives the
 * text to run, one that only answers (`/help`, `/sessions`) gives its output, which is then the
 * answer. Resolves with null for any other task (an unknown `/word` is text for the model, as it
 * always was for the one-shot). A command's failure is `{ ok: false }`, never thrown.
 */
export async function task_command(
  task: string,
  host: SessionHost,
  session_id: string,
): Promise<TaskCommand | null> {
  const match = COMMAND_LINE.exec(task.trim());
  if (match === null) return null;
  const name = (match[1] as string).toLowerCase();
  if (!host.commands(session_id).some((command) => command.name === name)) return null;
  try {
    const result = await host.run_command(session_id, name, (match[2] ?? '').trim());
    if (result.prompt !== undefined) return { kind: 'prompt', text: result.prompt };
    return { kind: 'done', ok: result.ok, output: result.output };
  } catch (error) {
    return {
      kind: 'done',
      ok: false,
      output: error instanceof Error ? error.message : String(error),
    };
  }
}
