import { CONFIG_OPTIONS, parse_command_args, string_option } from '../args.js';
import { load_cli_config } from '../cli_config.js';
import type { Command, CommandContext } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { newest_session, reading_session, resolve_session, short_id } from '../session_ids.js';
import { UsageError } from '../usage_error.js';

/** Asks one line on the terminal; resolves with the answer, trimmed and in lower case. */
async function ask(context: CommandContext, question: string): Promise<string> {
  const { createInterface } = await import('node:readline');
  const lines = createInterface({
    input: context.io.stdin,
    output: context.io.stderr,
    terminal: true,
  });
  return new Promise((resolve) => {
    lines.question(question, (answer) => {
      lines.close();
      resolve(answer.trim().toLowerCase());
    });
    lines.once('close', () => resolve(''));
  });
}

/**
 * `lich rewind [<prompt>] [--files|--chat] [--dry-run] [--redo] [--overwrite|--keep]`: the newest
 * session of the folder (or `--session <id>`) put back to before a prompt, as `/rewind` does —
 * without a prompt, the list of its prompts. Conflicts (files someone changed since the agent
 * left them) stop it, exit 1, unless `--overwrite` or `--keep` says what to do, or a person at a
 * terminal answers. A session another process holds open is refused: rewind it there.
 */
export const command_rewind: Command = async (context) => {
  const { values, positionals } = parse_command_args('rewind', context.argv, {
    ...CONFIG_OPTIONS,
    session: { type: 'string' },
    files: { type: 'boolean' },
    chat: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    redo: { type: 'boolean' },
    overwrite: { type: 'boolean' },
    keep: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    context.io.stdout.write(`${help_text('rewind')}\n`);
    return EXIT.OK;
  }
  const agent = await import('@lich/agent');
  const words = [
    ...positionals,
    ...(values.files ? ['--files'] : []),
    ...(values.chat ? ['--chat'] : []),
    ...(values['dry-run'] ? ['--dry-run'] : []),
    ...(values.redo ? ['--redo'] : []),
    ...(values.overwrite ? ['--overwrite'] : []),
    ...(values.keep ? ['--keep'] : []),
  ];
  if (values.overwrite && values.keep)
    throw new UsageError('--overwrite and --keep cannot go together', 'rewind');
  let parsed: ReturnType<typeof agent.parse_rewind_args>;
  try {
    parsed = agent.parse_rewind_args(words.join(' '));
  } catch (error) {
    throw new UsageError(
      error instanceof Error
        ? error.message.replace('/rewind --help', 'lich rewind --help')
        : String(error),
      'rewind',
    );
  }
  const loaded = await load_cli_config(context, 'rewind', values);
  if (loaded === null) return EXIT.USAGE;
  const { config } = loaded;
  const given = string_option(values.session);
  const summary =
    given === undefined
      ? await newest_session(config.session_dir)
      : await resolve_session(config.session_dir, given, 'rewind', context.io.cwd);
  if (summary === null)
    throw new UsageError(`no session in ${config.session_dir} to rewind`, 'rewind');
  const { SessionStore, SessionError } = await import('@lich/session');
  const { dirname } = await import('node:path');
  const sessions = new SessionStore({ session_dir: dirname(summary.path) });
  const handle = await reading_session(summary, () => sessions.open(summary.id)).catch(
    (error: unknown) => {
      if (SessionError.is_instance(error) && error.code === 'locked') {
        throw new Error(
          `session ${short_id(summary.id)} is open in another Lich (${error.message}); rewind it there with /rewind, or close it first`,
        );
      }
      throw error;
    },
  );
  const store = agent.checkpoint_store_of(config);
  try {
    if (parsed.list) {
      const points = agent.rewind_points(handle.state, store);
      if (values.json) {
        context.io.stdout.write(`${JSON.stringify(points, null, 2)}\n`);
      } else {
        context.say(context.err.dim(`session ${short_id(summary.id)}  ${summary.title}`));
        context.io.stdout.write(`${agent.format_rewind_points(points, 'lich rewind')}\n`);
      }
      return EXIT.OK;
    }
    const target = { store, handle, set_history: () => undefined };
    let request = parsed.request;
    let outcome = await agent.rewind_session(target, request);
    const at_terminal = context.io.stdin.isTTY === true && context.io.stderr.isTTY === true;
    if (outcome.status === 'conflicts' && at_terminal && !values.json) {
      context.say(outcome.summary);
      const answer = await ask(
        context,
        'Overwrite them (o), keep them as they are (k), or leave everything (Enter)? ',
      );
      const choice = answer === 'o' ? 'overwrite' : answer === 'k' ? 'keep' : undefined;
      if (choice !== undefined) {
        request = { ...request, on_conflict: choice };
        outcome = await agent.rewind_session(target, request);
      }
    }
    if (values.json) context.io.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
    else
      context.io.stdout.write(
        `${outcome.summary.replaceAll('/rewind --redo', 'lich rewind --redo')}\n`,
      );
    return outcome.status === 'conflicts' ? EXIT.FAILURE : EXIT.OK;
  } catch (error) {
    if (agent.SessionHostError.is_instance(error) && error.code === 'invalid_argument') {
      throw new UsageError(error.message, 'rewind');
    }
    throw error;
  } finally {
    await handle.close();
  }
};
