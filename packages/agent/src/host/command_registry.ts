import { COMMAND_NAME_PATTERN } from '@lich/tools';
import type { RewindOutcome, RewindPoint, RewindRequest } from '../checkpoints/rewind_types.js';
import type {
  CommandInfo,
  CommandResult,
  ModelInfo,
  SessionHost,
  SessionInfo,
} from './session_host_types.js';

/** One line of `/sessions`. */
export type SessionListing = Pick<SessionInfo, 'session_id' | 'title' | 'updated' | 'live'>;

/**
 * What a slash command runs with: the surface it was typed in (a `SessionHost` session, or
 * `lich chat`'s own conversation). Every surface supplies each of these, so one registry serves
 * them all.
 */
export interface CommandContext {
  /** The session the command was typed in; null when the surface records none. */
  session_id: string | null;
  /** The agent's work dir. */
  work_dir: string;
  /** The host, when the surface runs on one. */
  host?: SessionHost;
  /** The commands this surface offers, for `/help`: the registry's and the surface's own. */
  commands(): CommandInfo[];
  /** Empties the session's conversation (the file keeps what was said). */
  clear(): Promise<void>;
  /** Compresses the session's conversation now. */
  compact(): Promise<CommandResult>;
  /** The model the session runs on: `provider/model`. */
  model(): Promise<string>;
  /**
   * Switches the session to `model` (`model` or `provider/model`). Rejects with a
   * `SessionHostError` of code `invalid_argument` when no configured provider serves it.
   */
  set_model(model: string): Promise<void>;
  /** The models of the configured chain, the session default marked. */
  models(): ModelInfo[];
  /** The sessions of the work dir, newest first. */
  sessions(): Promise<SessionListing[]>;
  /** The session's prompts as `/rewind` lists them (none when the surface records no session). */
  rewind_points(): Promise<RewindPoint[]>;
  /** Rewinds the session, or redoes the last rewind (see `SessionHost.rewind`). */
  rewind(request: RewindRequest): Promise<RewindOutcome>;
}

/**
 * A slash command every surface lists and runs.
 *
 * Contract: `name` has no slash and matches `^[a-z][a-z0-9_-]*$`; `run` may reject, which the
 * registry turns into `{ ok: false }` with the message.
 */
export interface SlashCommand extends CommandInfo {
  run(context: CommandContext, args: string): Promise<CommandResult> | CommandResult;
}

/** A plugin's name, or a custom command's with namespaces (`frontend:component`). */
const NAME = new RegExp(`${COMMAND_NAME_PATTERN.source.slice(0, -1)}(?::[a-z0-9][a-z0-9_-]*)*$`);

/**
 * The slash commands of a host: the built-ins and those plugins add.
 *
 * Contract: names are unique (`register` throws on a second one, or on a bad name); `list` is in
 * registration order; `run` never rejects: an unknown command and a failing one are
 * `{ ok: false }` results naming what went wrong.
 */
export class CommandRegistry {
  readonly #commands = new Map<string, SlashCommand>();

  register(command: SlashCommand): () => void {
    const name = command.name;
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw new TypeError(`a slash command name must match ${NAME} (without the slash): '${name}'`);
    }
    if (this.#commands.has(name)) throw new Error(`slash command /${name} is already registered`);
    this.#commands.set(name, command);
    return () => {
      if (this.#commands.get(name) === command) this.#commands.delete(name);
    };
  }

  has(name: string): boolean {
    return this.#commands.has(normalise(name));
  }

  list(): CommandInfo[] {
    return [...this.#commands.values()].map((command) => ({
      name: command.name,
      description: command.description,
      ...(command.argument_hint === undefined ? {} : { argument_hint: command.argument_hint }),
    }));
  }

  async run(context: CommandContext, name: string, args = ''): Promise<CommandResult> {
    const command = this.#commands.get(normalise(name));
    if (command === undefined) {
      const known = [...this.#commands.keys()].map((known_name) => `/${known_name}`).join(', ');
      return { ok: false, output: `unknown command /${normalise(name)}; known: ${known}` };
    }
    try {
      return await command.run(context, args.trim());
    } catch (error) {
      return {
        ok: false,
        output: `/${command.name} failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
}

function normalise(name: string): string {
  return name.trim().replace(/^\//, '').toLowerCase();
}
