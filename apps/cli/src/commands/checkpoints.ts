import { CONFIG_OPTIONS, parse_command_args } from '../args.js';
import { load_cli_config } from '../cli_config.js';
import type { Command } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { short_id } from '../session_ids.js';
import { UsageError } from '../usage_error.js';

function megabytes(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MB`
    : `${Math.ceil(bytes / 1024)} kB`;
}

/**
 * `lich checkpoints [--prune] [--dry-run] [--json]`: what the folder's checkpoint store
 * (`.lich/checkpoints`) holds and how big it is, the settings in force, the newest checkpoints;
 * `--prune` removes those of closed sessions past `keep_days`, then the oldest until it fits in
 * `max_mb` (`--dry-run`: says what it would remove).
 */
export const command_checkpoints: Command = async (context) => {
  const { values, positionals } = parse_command_args('checkpoints', context.argv, {
    ...CONFIG_OPTIONS,
    prune: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    context.io.stdout.write(`${help_text('checkpoints')}\n`);
    return EXIT.OK;
  }
  if (positionals.length > 0) {
    throw new UsageError(
      `checkpoints takes no words ('${positionals[0]}'); --prune removes old ones`,
      'checkpoints',
    );
  }
  if (values['dry-run'] && !values.prune)
    throw new UsageError('--dry-run goes with --prune', 'checkpoints');
  const loaded = await load_cli_config(context, 'checkpoints', values);
  if (loaded === null) return EXIT.USAGE;
  const { config } = loaded;
  const agent = await import('@lich/agent');
  const store = agent.checkpoint_store_of(config);
  if (store === null) {
    context.say('checkpoints are off here (checkpoints: false in the config)');
    return EXIT.OK;
  }
  const settings = config.checkpoints;
  const is_open = (id: string) => agent.session_is_open(config.session_dir, id);
  if (values.prune) {
    const result = await store.prune({
      ...agent.prune_options(config, is_open),
      dry_run: values['dry-run'] === true,
    });
    if (values.json) {
      context.io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return EXIT.OK;
    }
    const verb = values['dry-run'] ? 'would remove' : 'removed';
    context.io.stdout.write(
      `${verb} ${result.removed.length} checkpoint${result.removed.length === 1 ? '' : 's'} and ${result.removed_objects} stored file${result.removed_objects === 1 ? '' : 's'} (${megabytes(result.freed_bytes)}); ${result.kept} left (${megabytes(result.total_bytes)})\n`,
    );
    return EXIT.OK;
  }
  const usage = store.usage();
  const sessions = new Map<string, number>();
  for (const record of usage.checkpoints) {
    if (record.session_id !== undefined)
      sessions.set(record.session_id, (sessions.get(record.session_id) ?? 0) + 1);
  }
  if (values.json) {
    context.io.stdout.write(
      `${JSON.stringify({ store: store.store_dir, bytes: usage.bytes, objects: usage.objects, settings, checkpoints: usage.checkpoints }, null, 2)}\n`,
    );
    return EXIT.OK;
  }
  const open = [...sessions.keys()].filter(is_open).length;
  const lines = [
    `${store.store_dir}: ${usage.checkpoints.length} checkpoint${usage.checkpoints.length === 1 ? '' : 's'}, ${megabytes(usage.bytes)} (${usage.objects} stored files and folder listings)`,
    `  of ${sessions.size} session${sessions.size === 1 ? '' : 's'} (${open} open: kept whatever their age)`,
    `  kept ${settings.keep_days} days, at most ${settings.max_mb} MB; files over ${settings.max_file_mb} MB recorded by name only`,
    `  left out: .git, .lich${settings.default_excludes ? ', dependency and cache folders (node_modules, .venv, … and folders with a CACHEDIR.TAG)' : ''}${settings.exclude.length > 0 ? `, ${settings.exclude.join(', ')}` : ''}`,
  ];
  const newest = usage.checkpoints.slice(-10).reverse();
  if (newest.length > 0) lines.push('newest:');
  for (const record of newest) {
    const when = record.created_at.slice(0, 16).replace('T', ' ');
    const session =
      record.session_id === undefined ? '' : `session ${short_id(record.session_id)}  `;
    const label = record.label === undefined ? '' : `  ${record.label.slice(0, 50)}`;
    lines.push(
      `  ${record.id}  ${when}  ${record.kind.padEnd(13)}  ${session}+${megabytes(record.new_bytes)}${label}`,
    );
  }
  context.io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.OK;
};
