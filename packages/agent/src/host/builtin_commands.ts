import { format_rewind_points, parse_rewind_args } from '../checkpoints/rewind_text.js';
import type { SlashCommand } from './command_registry.js';
import { SessionHostError } from './session_host_error.js';

/** `/help`: every command with its description. */
const HELP: SlashCommand = {
  name: 'help',
  description: 'list the slash commands',
  run(context) {
    const lines = context
      .commands()
      .map(
        (command) =>
          `/${command.name}${command.argument_hint ? ` ${command.argument_hint}` : ''}  ${command.description}`,
      );
    return { ok: true, output: lines.join('\n') };
  },
};

const CLEAR: SlashCommand = {
  name: 'clear',
  description: 'start the conversation afresh (the session file keeps what was said)',
  async run(context) {
    await context.clear();
    return { ok: true, output: 'The conversation was cleared.' };
  },
};

const COMPACT: SlashCommand = {
  name: 'compact',
  description: 'summarise the earlier conversation now, to free context',
  run(context) {
    return context.compact();
  },
};

const MODEL: SlashCommand = {
  name: 'model',
  description: 'show the model, or switch this session to another one',
  argument_hint: '[provider/model]',
  async run(context, args) {
    if (args === '') {
      const others = context
        .models()
        .map((model) => `  ${model.provider}/${model.model}${model.default ? ' (default)' : ''}`);
      return {
        ok: true,
        output: [`Model: ${await context.model()}`, 'Configured:', ...others].join('\n'),
      };
    }
    try {
      await context.set_model(args);
    } catch (error) {
      if (SessionHostError.is_instance(error) && error.code === 'invalid_argument') {
        return { ok: false, output: error.message };
      }
      throw error;
    }
    return { ok: true, output: `Model: ${await context.model()}` };
  },
};

const SESSIONS: SlashCommand = {
  name: 'sessions',
  description: 'list the sessions of this work dir, newest first',
  async run(context) {
    const sessions = await context.sessions();
    if (sessions.length === 0) return { ok: true, output: 'No sessions yet.' };
    const lines = sessions
      .slice(0, 20)
      .map(
        (session) =>
          `${session.session_id}  ${session.updated.slice(0, 16).replace('T', ' ')}  ${session.live ? '(live) ' : ''}${session.title || '(untitled)'}`,
      );
    if (sessions.length > 20) lines.push(`… and ${sessions.length - 20} more`);
    return { ok: true, output: lines.join('\n') };
  },
};

const REWIND: SlashCommand = {
  name: 'rewind',
  description:
    'List the prompts; with a number, rewind the conversation and the files to before it (--files or --chat for one, --dry-run, --redo).',
  argument_hint: '[n] [--files|--chat] [--dry-run] [--redo] [--overwrite|--keep]',
  async run(context, args) {
    let parsed: ReturnType<typeof parse_rewind_args>;
    try {
      parsed = parse_rewind_args(args);
    } catch (error) {
      return { ok: false, output: `/rewind: ${error instanceof Error ? error.message : error}` };
    }
    if (parsed.list)
      return { ok: true, output: format_rewind_points(await context.rewind_points()) };
    try {
      const outcome = await context.rewind(parsed.request);
      return { ok: outcome.status !== 'conflicts', output: outcome.summary };
    } catch (error) {
      if (SessionHostError.is_instance(error)) return { ok: false, output: error.message };
      throw error;
    }
  },
};

/** The commands every host has: `/help`, `/clear`, `/compact`, `/model`, `/sessions`, `/rewind`. */
export function builtin_commands(): SlashCommand[] {
  return [HELP, CLEAR, COMPACT, MODEL, SESSIONS, REWIND];
}
