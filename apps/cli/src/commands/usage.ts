import type { SessionRecords, UsageReport, UsageRow } from '@lich/agent';
import { CONFIG_OPTIONS, parse_command_args } from '../args.js';
import { load_cli_config } from '../cli_config.js';
import type { Command, CommandContext } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { format_dollars } from '../progress_output.js';
import { short_id } from '../session_ids.js';
import { UsageError } from '../usage_error.js';

/** How many sessions the text report lists (the JSON has them all). */
const SESSION_ROWS = 10;

/** The records of every session file in `dirs` (unreadable ones are said on stderr). */
async function read_all(
  context: CommandContext,
  dirs: readonly string[],
): Promise<SessionRecords[]> {
  const { list_sessions, read_session } = await import('@lich/session');
  const sessions: SessionRecords[] = [];
  for (const dir of dirs) {
    const listed = await list_sessions(dir).catch(() => []);
    for (const { id, path } of listed) {
      try {
        const contents = await read_session(path);
        sessions.push({ id, records: contents.records });
      } catch (error) {
        context.warn(`session ${id} left out: ${error instanceof Error ? error.message : error}`);
      }
    }
  }
  return sessions;
}

function count(value: number): string {
  if (value < 10_000) return String(value);
  if (value < 10_000_000) return `${(value / 1000).toFixed(1)}k`;
  return `${(value / 1_000_000).toFixed(1)}M`;
}

function row_line(label: string, row: UsageRow): string {
  const { usage } = row;
  const cache = `${Math.round(row.cache_hit_ratio * 100)}% cached`;
  const written = usage.cache_write_tokens ? `, ${count(usage.cache_write_tokens)} written` : '';
  return `  ${label.padEnd(28)} ${String(row.calls).padStart(5)} calls  ${count(usage.input_tokens).padStart(7)} in (${cache}${written})  ${count(usage.output_tokens).padStart(7)} out  ${format_dollars(row.cost_usd)}`;
}

function render(report: UsageReport): string {
  const lines = [
    `${report.sessions} session${report.sessions === 1 ? '' : 's'}, ${report.total.calls} model calls`,
    row_line('total', report.total),
    '',
    'By day:',
    ...report.by_day.map((row) => row_line(row.key, row)),
    '',
    'By model:',
    ...report.by_model.map((row) => row_line(row.key, row)),
    '',
    `By session${report.by_session.length > SESSION_ROWS ? ` (the ${SESSION_ROWS} costliest)` : ''}:`,
    ...report.by_session.slice(0, SESSION_ROWS).map((row) => row_line(short_id(row.key), row)),
  ];
  return lines.join('\n');
}

/**
 * `lich usage [--all] [--json]`: tokens and dollars of the work dir's sessions (or of every
 * session folder Lich wrote to, with `--all`) by day, by model and by session, with the share of
 * the input read from the prompt cache.
 */
export const command_usage: Command = async (context) => {
  const { values, positionals } = parse_command_args('usage', context.argv, {
    ...CONFIG_OPTIONS,
    all: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    context.io.stdout.write(`${help_text('usage')}\n`);
    return EXIT.OK;
  }
  if (positionals.length > 0) {
    throw new UsageError(`usage takes no words ('${positionals[0]}')`, 'usage');
  }
  const loaded = await load_cli_config(context, 'usage', values);
  if (loaded === null) return EXIT.USAGE;
  const { config } = loaded;
  const agent = await import('@lich/agent');
  const dirs = [config.session_dir];
  if (values.all === true) {
    const file = agent.session_dirs_file(context.io.env);
    for (const dir of file === null ? [] : await agent.known_session_dirs(file)) {
      if (!dirs.includes(dir)) dirs.push(dir);
    }
  }
  const sessions = await read_all(context, dirs);
  const prices = await agent.load_price_book(config.prices);
  const report = agent.usage_report(sessions, prices);
  if (values.json === true) {
    context.io.stdout.write(`${JSON.stringify({ session_dirs: dirs, ...report }, null, 2)}\n`);
    return EXIT.OK;
  }
  if (sessions.length === 0) {
    context.say(`no sessions in ${dirs.join(', ')}`);
    return EXIT.OK;
  }
  context.io.stdout.write(`${render(report)}\n`);
  return EXIT.OK;
};
