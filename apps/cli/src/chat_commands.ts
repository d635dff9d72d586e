import type { Agent } from '@lich/agent';
import type { Message } from '@lich/core';

/** What a chat's slash command works on. */
export interface ChatState {
  agent: Agent;
  history: Message[];
  /** The model asked for with `/model`, or undefined for the configured chain. */
  model: string | undefined;
  /** Writes a line for the person (stderr). */
  say(text: string): void;
}

/** One slash command of `lich chat`. */
export interface ChatCommand {
  name: string;
  description: string;
  argument_hint?: string;
  /** Resolves with `exit` when the chat should end. */
  run(args: string, state: ChatState): Promise<{ exit?: boolean } | undefined>;
}

function label(state: ChatState): string {
  const chain = state.agent.resolve_model(state.model) ?? state.agent.config.providers;
  const first = chain[0];
  return first ? `${first.kind}/${first.model}` : 'none';
}

/**
 * The slash commands `lich chat` handles itself. Kept in this one list so a shared command
 * registry (the SessionHost's) can take its place without touching the chat loop.
 */
export const CHAT_COMMANDS: readonly ChatCommand[] = [
  {
    name: 'help',
    description: 'list the slash commands',
    async run(_args, state) {
      for (const command of CHAT_COMMANDS) {
        const hint = command.argument_hint ? ` ${command.argument_hint}` : '';
        state.say(`/${command.name}${hint}  ${command.description}`);
      }
      state.say('//text sends a line that starts with a slash');
      return undefined;
    },
  },
  {
    name: 'clear',
    description: 'start the conversation afresh (the session file keeps what was said)',
    async run(_args, state) {
      state.history = [];
      state.say('the conversation was cleared');
      return undefined;
    },
  },
  {
    name: 'model',
    argument_hint: '[provider/model]',
    description: 'show the model, or switch to another one',
    async run(args, state) {
      if (args !== '') {
        if (state.agent.resolve_model(args) === null) {
          state.say(`no provider in the config serves '${args}'`);
          return undefined;
        }
        state.model = args;
      }
      state.say(`model: ${label(state)}`);
      return undefined;
    },
  },
  {
    name: 'compact',
    description: 'summarise the earlier conversation now, to free context',
    async run(_args, state) {
      const result = await state.agent.compact(state.history, {
        ...(state.model === undefined ? {} : { model: state.model }),
      });
      if (!result.ok) {
        state.say(`could not compact: ${result.error ?? 'the summary failed'}`);
        return undefined;
      }
      const before = state.history.length;
      state.history = [...result.messages];
      state.say(`compacted the conversation: ${before} → ${state.history.length} messages`);
      return undefined;
    },
  },
  { name: 'exit', description: 'leave the chat', run: async () => ({ exit: true }) },
  { name: 'quit', description: 'leave the chat', run: async () => ({ exit: true }) },
];

/** A line that names a slash command: `/word` at its start. `//text` is text. */
const COMMAND_LINE = /^\/([A-Za-z][\w-]*)(?:\s+(.*))?$/s;

/**
 * Runs `line` when it is a slash command: resolves with `{ handled: false }` for a line to send
 * to the model, else with whether to leave. An unknown command is answered with an error line
 * (not sent to the model). `//text` is handled: it becomes the text `/text` to send.
 */
export async function run_chat_command(
  line: string,
  state: ChatState,
): Promise<{ handled: false; text: string } | { handled: true; exit: boolean }> {
  if (line.startsWith('//')) return { handled: false, text: line.slice(1) };
  const match = COMMAND_LINE.exec(line);
  if (match === null) return { handled: false, text: line };
  const name = (match[1] as string).toLowerCase();
  const command = CHAT_COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    state.say(`unknown command /${name} (see /help; //${name} sends it as text)`);
    return { handled: true, exit: false };
  }
  const result = await command.run((match[2] ?? '').trim(), state);
  return { handled: true, exit: result?.exit === true };
}
