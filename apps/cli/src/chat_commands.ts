import {
  type Agent,
  type CommandContext,
  type CommandInfo,
  type RewindOutcome,
  type RewindPoint,
  type RewindRequest,
  rewind_points,
  rewind_session,
  SessionHostError,
  type SessionListing,
  session_store_of,
} from '@lich/agent';
import type { Message } from '@lich/core';
import { NOTHING_TO_COMPRESS } from '@lich/core';
import type { SessionHandle } from '@lich/session';

/** What a chat's slash command works on. */
export interface ChatState {
  agent: Agent;
  history: Message[];
  /** The model asked for with `/model`, or undefined for the configured chain. */
  model: string | undefined;
  /** The chat's session, or null with `--no-session`. */
  session_id: string | null;
  /** The chat's session file (what `/rewind` reads and records into), or null. */
  session: SessionHandle | null;
  /** Writes a line for the person (stderr). */
  say(text: string): void;
}

/** The commands only the chat has: leaving it. Every other one is the agent's registry's. */
const LOCAL_COMMANDS: readonly CommandInfo[] = [
  { name: 'exit', description: 'leave the chat' },
  { name: 'quit', description: 'leave the chat' },
];

function label(state: ChatState): string {
  const chain = state.agent.resolve_model(state.model) ?? state.agent.config.providers;
  const first = chain[0];
  return first ? `${first.kind}/${first.model}` : 'none';
}

async function session_listing(state: ChatState): Promise<SessionListing[]> {
  const store = session_store_of(state.agent.config);
  const { nest_sessions } = await import('@lich/session');
  // the conversations a person started; subagents' sessions sit beneath them, unlisted here
  return nest_sessions((await store.list()).filter((summary) => summary.problem === undefined))
    .map((row) => row.session)
    .map((summary) => ({
      session_id: summary.id,
      title: summary.title,
      updated: summary.updated,
      live: summary.id === state.session_id,
    }));
}

/** The prompts of the chat's session, as `/rewind` lists them. */
export function chat_rewind_points(state: ChatState): Promise<RewindPoint[]> {
  if (state.session === null) return Promise.resolve([]);
  return Promise.resolve(rewind_points(state.session.state, state.agent.checkpoint_store()));
}

/** Rewinds the chat's session; a rewound conversation becomes the chat's history. */
export async function chat_rewind(
  state: ChatState,
  request: RewindRequest,
): Promise<RewindOutcome> {
  if (state.session === null) {
    throw new SessionHostError(
      'unavailable',
      'this chat is not recorded (--no-session), so it cannot be rewound',
    );
  }
  return rewind_session(
    {
      store: state.agent.checkpoint_store(),
      handle: state.session,
      set_history: (history) => {
        // the chat keeps its history without the system prompt (each run seeds it)
        state.history = history.filter((message) => message.role !== 'system');
      },
    },
    request,
  );
}

/** The chat as a slash command's surface: the same context a SessionHost session gives. */
function chat_context(state: ChatState): CommandContext {
  const { agent } = state;
  return {
    session_id: state.session_id,
    work_dir: agent.config.work_dir,
    commands: () => [...agent.commands.list(), ...LOCAL_COMMANDS],
    clear: async () => {
      state.history = [];
    },
    compact: async () => {
      const result = await agent.compact(state.history, {
        ...(state.model === undefined ? {} : { model: state.model }),
      });
      if (!result.ok && result.error === NOTHING_TO_COMPRESS) {
        return { ok: true, output: 'Nothing to compact yet: the conversation is still short.' };
      }
      if (!result.ok) return { ok: false, output: `Nothing was compacted: ${result.error}` };
      const before = state.history.length;
      state.history = [...result.messages];
      return { ok: true, output: `Compacted ${before} messages into ${state.history.length}.` };
    },
    model: async () => label(state),
    set_model: async (model) => {
      if (agent.resolve_model(model) === null) {
        throw new SessionHostError(
          'invalid_argument',
          `no provider in the config serves '${model}'`,
        );
      }
      state.model = model.trim();
    },
    models: () =>
      agent.config.providers.map((entry, index) => ({
        provider: entry.kind,
        model: entry.model,
        default: index === 0,
      })),
    sessions: () => session_listing(state),
    rewind_points: () => chat_rewind_points(state),
    rewind: (request) => chat_rewind(state, request),
  };
}

/** A line that names a slash command: `/word` at its start. `//text` is text. */
const COMMAND_LINE = /^\/([A-Za-z][\w:-]*)(?:\s+(.*))?$/s;

/**
 * Runs `line` when it is a slash command: resolves with `{ handled: false }` for a line to send
 * to the model, else with whether to leave. `/exit` and `/quit` are the chat's own; every other
 * command runs from the agent's command registry (`Agent.commands`: `/help`, `/clear`,
 * `/compact`, `/model`, `/sessions` and those plugins add), the registry every surface shares.
 * An unknown command is answered with an error line (not sent to the model). `//text` becomes
 * the text `/text` to send.
 */
export async function run_chat_command(
  line: string,
  state: ChatState,
): Promise<{ handled: false; text: string; model?: string } | { handled: true; exit: boolean }> {
  if (line.startsWith('//')) return { handled: false, text: line.slice(1) };
  const match = COMMAND_LINE.exec(line);
  if (match === null) return { handled: false, text: line };
  const name = (match[1] as string).toLowerCase();
  if (LOCAL_COMMANDS.some((command) => command.name === name)) {
    return { handled: true, exit: true };
  }
  if (!state.agent.commands.has(name)) {
    state.say(`unknown command /${name} (see /help; //${name} sends it as text)`);
    return { handled: true, exit: false };
  }
  const result = await state.agent.commands.run(chat_context(state), name, match[2] ?? '');
  if (result.output !== '') state.say(result.output);
  // a custom command's prompt goes to the model as if typed
  if (result.prompt !== undefined) {
    // a command's `model:` is for its own turn: /model's choice stays for the next
    return {
      handled: false,
      text: result.prompt,
      ...(result.model === undefined ? {} : { model: result.model }),
    };
  }
  if (name === 'help') state.say('//text sends a line that starts with a slash');
  return { handled: true, exit: false };
}
