import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { compare_text, content_text, type Message } from '@lich/core';
import type { SessionSummary } from '@lich/session';
import { cli_approval } from '../approval.js';
import {
  AGENT_OPTIONS,
  integer_option,
  OUTPUT_OPTIONS,
  type ParsedValues,
  parse_command_args,
  string_option,
} from '../args.js';
import { load_cli_config, model_given } from '../cli_config.js';
import type { Command, CommandContext } from '../context.js';
import { execute_task } from '../execute_task.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { make_agent, report_no_provider } from '../make_agent.js';
import { output_settings } from '../output_settings.js';
import { format_dollars } from '../progress_output.js';
import { newest_session, reading_session, resolve_session, short_id } from '../session_ids.js';
import { UsageError } from '../usage_error.js';

const SUBCOMMANDS = ['list', 'show', 'resume', 'search', 'export', 'repair'];

function one_line(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

function render_message(context: CommandContext, message: Message): string {
  const { out } = context;
  switch (message.role) {
    case 'system':
      return `${out.dim('system:')} ${one_line(message.content, 100)}`;
    case 'user':
      return `${out.bold('user:')} ${content_text(message.content)}`;
    case 'assistant': {
      const calls = (message.tool_calls ?? []).map(
        (call) => `  ${out.cyan('→')} ${call.name} ${one_line(call.arguments, 90)}`,
      );
      const text =
        message.content.trim() === '' ? [] : [`${out.bold('assistant:')} ${message.content}`];
      if (text.length === 0 && calls.length > 0) text.push(out.bold('assistant:'));
      return [...text, ...calls].join('\n');
    }
    case 'tool': {
      const mark = message.is_error ? out.red('✗') : out.green('✓');
      return `  ${mark} ${message.name ?? 'tool'}: ${out.dim(one_line(content_text(message.content), 100))}`;
    }
  }
}

/**
 * `lich sessions list`: the sessions a person started, newest first, each saying how many
 * subagents ran beneath it; with `--all` the subagents too, indented beneath their parent.
 * `--limit` counts the top-level sessions, so children never push a conversation off the list.
 */
async function list(context: CommandContext, session_dir: string, values: ParsedValues) {
  const { list_sessions, nest_sessions } = await import('@lich/session');
  const limit = integer_option('sessions', 'limit', values.limit) ?? 20;
  const all = (await list_sessions(session_dir)).sort((a, b) => compare_text(b.updated, a.updated));
  const with_children = values.all === true;
  const tops = nest_sessions(all);
  const shown = new Set(tops.slice(0, limit).map((row) => row.session.id));
  // a child is shown with the top-level session it sits beneath
  const rows = nest_sessions(all, { children: with_children }).filter((row) => shown.has(row.root));
  // never a silent cut: what was left out is said on stderr (stdout stays the list)
  const more = tops.length - shown.size;
  const hidden = with_children ? 0 : rows.reduce((sum, row) => sum + row.descendants, 0);
  const tell_more = () => {
    if (more > 0) {
      context.say(context.err.dim(`… ${more} more (lich sessions list --limit ${tops.length})`));
    }
    if (hidden > 0 && !values.json) {
      context.say(
        context.err.dim(
          `${hidden} subagent session${hidden === 1 ? '' : 's'} not listed (lich sessions list --all)`,
        ),
      );
    }
  };
  if (values.json) {
    const entries = rows.map((row) => ({ ...row.session, subagents: row.descendants }));
    context.io.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
    tell_more();
    return EXIT.OK;
  }
  if (rows.length === 0) {
    context.say(`no sessions in ${session_dir}`);
    return EXIT.OK;
  }
  for (const { session, depth, descendants } of rows) {
    const when = session.updated.replace('T', ' ').slice(0, 16);
    const runs = `${session.runs} run${session.runs === 1 ? '' : 's'}`;
    const indent = depth === 0 ? '' : `${'  '.repeat(depth - 1)}↳ `;
    const title = session.problem
      ? context.out.red(session.problem)
      : one_line(session.title, Math.max(20, 70 - indent.length));
    const tokens = `${format_count(session.usage.input_tokens)} in, ${format_count(session.usage.output_tokens)} out, ${format_dollars(session.cost_usd)}`;
    const children =
      !with_children && descendants > 0
        ? context.out.dim(`  (+${descendants} subagent${descendants === 1 ? '' : 's'})`)
        : '';
    context.io.stdout.write(
      `${indent}${short_id(session.id)}  ${context.out.dim(`${when}  ${runs}  ${tokens}`)}  ${title}${children}\n`,
    );
  }
  tell_more();
  return EXIT.OK;
}

/** Whether stdin and stdout are both a terminal, and the TUI is not turned off. */
async function on_a_terminal(context: CommandContext): Promise<boolean> {
  if (context.io.stdout.isTTY !== true || context.io.env.LICH_NO_TUI === '1') return false;
  const { stdin_kind } = await import('../stdin_kind.js');
  return (await stdin_kind(context.io)) === 'tty';
}

/** `lich sessions repair <id>`: moves a session's bad lines to `<file>.corrupt`. */
async function repair(context: CommandContext, summary: SessionSummary): Promise<number> {
  const { read_session } = await import('@lich/session');
  const contents = await read_session(summary.path, { repair: true });
  if (!contents.repaired) {
    context.say(`session ${short_id(summary.id)} has nothing to repair (${summary.path})`);
    return EXIT.OK;
  }
  for (const problem of contents.problems) context.say(context.err.dim(problem.message));
  const lines = contents.problems.length;
  context.say(
    `repaired session ${short_id(summary.id)}: moved ${lines} bad line${lines === 1 ? '' : 's'} to ${summary.path}.corrupt; ${contents.records.length} records kept`,
  );
  return EXIT.OK;
}

/** `lich sessions list|show|resume|search|export|repair`. */
export const command_sessions: Command = async (context) => {
  const { values, positionals } = parse_command_args('sessions', context.argv, {
    ...AGENT_OPTIONS,
    ...OUTPUT_OPTIONS,
    limit: { type: 'string' },
    out: { type: 'string' },
    all: { type: 'boolean' },
  });
  const [subcommand, ...rest] = positionals;
  if (values.help || subcommand === undefined) {
    context.io.stdout.write(`${help_text('sessions')}\n`);
    return values.help ? EXIT.OK : EXIT.USAGE;
  }
  if (!SUBCOMMANDS.includes(subcommand)) {
    throw new UsageError(`unknown subcommand 'sessions ${subcommand}'`, 'sessions', {
      word: subcommand,
      candidates: SUBCOMMANDS,
    });
  }
  const resuming = subcommand === 'resume';
  const loaded = await load_cli_config(context, 'sessions', values, {
    detect_providers: resuming,
    agent_flags: resuming,
  });
  if (loaded === null) return EXIT.USAGE;
  const { session_dir } = loaded.config;
  const session = await import('@lich/session');
  const needs_id = (what: string) => {
    const id = rest[0];
    if (id === undefined) throw new UsageError(`sessions ${what} needs a session id`, 'sessions');
    return id;
  };
  const find = (what: string) =>
    resolve_session(session_dir, needs_id(what), 'sessions', context.io.cwd);
  switch (subcommand) {
    case 'list':
      return list(context, session_dir, values);
    case 'show': {
      const summary = await find('show');
      const messages = await reading_session(summary, () =>
        session.read_session_messages(summary.path),
      );
      if (values.json) {
        context.io.stdout.write(`${JSON.stringify(messages, null, 2)}\n`);
        return EXIT.OK;
      }
      context.say(context.err.dim(`${summary.id}  ${summary.path}`));
      for (const message of messages) {
        context.io.stdout.write(`${render_message(context, message)}\n`);
      }
      return EXIT.OK;
    }
    case 'search': {
      const query = rest.join(' ');
      if (query === '')
        throw new UsageError('sessions search needs the text to look for', 'sessions');
      // --limit counts sessions here too: up to 50 hits of each of the newest matching ones
      const limit = integer_option('sessions', 'limit', values.limit) ?? 20;
      const found = await session.search_sessions(session_dir, query, { limit: 10_000 });
      const ids = [...new Set(found.map((hit) => hit.session_id))];
      const kept = new Set(ids.slice(0, limit));
      const per_session = new Map<string, number>();
      const hits = found.filter((hit) => {
        if (!kept.has(hit.session_id)) return false;
        const count = (per_session.get(hit.session_id) ?? 0) + 1;
        per_session.set(hit.session_id, count);
        return count <= 50;
      });
      if (values.json) {
        context.io.stdout.write(`${JSON.stringify(hits, null, 2)}\n`);
        return EXIT.OK;
      }
      if (hits.length === 0) context.say(`no session mentions '${query}'`);
      for (const hit of hits) {
        context.io.stdout.write(
          `${short_id(hit.session_id)}:${hit.line}  ${context.out.dim(`${hit.message.role}:`)} ${hit.excerpt}\n`,
        );
      }
      if (ids.length > kept.size) {
        context.say(
          context.err.dim(
            `… ${ids.length - kept.size} more sessions mention it (--limit ${ids.length})`,
          ),
        );
      }
      return EXIT.OK;
    }
    case 'export': {
      const summary = await find('export');
      const markdown = await reading_session(summary, () =>
        session.export_markdown(summary.path, { blob_dir: session.default_blob_dir(session_dir) }),
      );
      const out = string_option(values.out);
      if (out === undefined) {
        context.io.stdout.write(markdown.endsWith('\n') ? markdown : `${markdown}\n`);
      } else {
        const target = resolve(context.io.cwd, out);
        try {
          await writeFile(target, markdown);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          const why =
            code === 'ENOENT'
              ? 'its folder does not exist'
              : code === 'EACCES' || code === 'EPERM'
                ? 'no permission to write there'
                : code === 'EISDIR'
                  ? 'it is a folder'
                  : error instanceof Error
                    ? error.message
                    : String(error);
          context.say(`${context.err.red('lich:')} cannot write the export to ${target}: ${why}`);
          return EXIT.FAILURE;
        }
        context.say(`wrote ${target}`);
      }
      return EXIT.OK;
    }
    case 'repair':
      return repair(context, await find('repair'));
    default: {
      // without an id: the newest session of the folder, as `lich -c` does
      const id = rest[0] ?? (await newest_session(session_dir))?.path;
      if (id === undefined) {
        throw new UsageError(`no session to resume in ${session_dir}`, 'sessions');
      }
      const task = (rest[0] === undefined ? [] : rest.slice(1)).join(' ').trim();
      if (task === '' && (await on_a_terminal(context))) {
        // the same interactive surface as `lich -c`: the TUI, on this session
        const { basename } = await import('node:path');
        const session_id = basename(id).replace(/\.jsonl$/, '');
        const flags = context.argv.filter((word) => word !== 'resume' && word !== rest[0]);
        const { open_tui } = await import('../interactive.js');
        return open_tui({ ...context, argv: [...flags, '--resume', session_id] });
      }
      if (report_no_provider(context, loaded.config, model_given(context, values)))
        return EXIT.USAGE;
      const output = output_settings('sessions', values);
      const agent = await make_agent(context, loaded.config, output, values.trust === true);
      if (task === '') {
        // off a terminal: the line chat, on this session
        const { chat_loop } = await import('../chat_loop.js');
        try {
          return await chat_loop(context, {
            agent,
            resume: id,
            no_session: false,
            command: 'sessions',
            show_reasoning: values['show-reasoning'] === true,
            approval_flags: values,
            output,
          });
        } finally {
          await agent.close();
        }
      }
      try {
        return await execute_task(context, {
          agent,
          input: task,
          resume: id,
          no_session: false,
          command: 'sessions',
          output,
          show_reasoning: values['show-reasoning'] === true,
          approval: await cli_approval(context, values, agent.config, 'sessions'),
        });
      } finally {
        await agent.close();
      }
    }
  }
};

/** `950`, `12.3k`, `4.1M`: a token count in a few characters. */
function format_count(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(1)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}
