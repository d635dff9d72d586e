import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parse_command_args } from '../args.js';
import type { Command } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import {
  CLI_PACKAGE,
  compare_versions,
  DEFAULT_NPM_REGISTRY,
  git_checkout_of,
  latest_version,
} from '../update_check.js';
import { UsageError } from '../usage_error.js';
import { version } from '../version.js';

/**
 * `lich update`: from a git clone, says to `git pull`; otherwise asks the npm registry
 * (`LICH_NPM_REGISTRY`, else `npm_config_registry`, else npmjs.org) for the latest @lich/cli and
 * runs `npm install -g @lich/cli@<latest>` when it is newer (`--check` only reports).
 * `LICH_UPDATE_PACKAGE_DIR` stands in for this package's folder (tests).
 */
export const command_update: Command = async (context) => {
  const { values, positionals } = parse_command_args('update', context.argv, {
    help: { type: 'boolean', short: 'h' },
    check: { type: 'boolean' },
  });
  if (values.help) {
    context.io.stdout.write(`${help_text('update')}\n`);
    return EXIT.OK;
  }
  if (positionals.length > 0) throw new UsageError('update takes no arguments', 'update');
  const { env } = context.io;
  const package_dir = env.LICH_UPDATE_PACKAGE_DIR || fileURLToPath(new URL('..', import.meta.url));
  const current = version();
  const checkout = await git_checkout_of(package_dir);
  if (checkout !== null) {
    context.io.stdout.write(
      `lich ${current} runs from a git clone (${checkout}); update it with:\n  git -C ${checkout} pull && pnpm -C ${checkout} install && pnpm -C ${checkout} build\n`,
    );
    return EXIT.OK;
  }
  const registry = env.LICH_NPM_REGISTRY || env.npm_config_registry || DEFAULT_NPM_REGISTRY;
  const latest = await latest_version(registry, CLI_PACKAGE);
  if (!latest.ok) {
    context.say(`${context.err.red('lich:')} ${latest.error}`);
    return EXIT.FAILURE;
  }
  if (compare_versions(latest.version, current) <= 0) {
    context.io.stdout.write(`lich ${current} is the latest version\n`);
    return EXIT.OK;
  }
  context.io.stdout.write(`lich ${latest.version} is available (you have ${current})\n`);
  if (values.check) return EXIT.OK;
  const npm = env.LICH_NPM || (process.platform === 'win32' ? 'npm.cmd' : 'npm');
  const args = ['install', '-g', `${CLI_PACKAGE}@${latest.version}`];
  if (registry !== DEFAULT_NPM_REGISTRY) args.push('--registry', registry);
  context.say(context.err.dim(`${npm} ${args.join(' ')}`));
  const code = await new Promise<number>((resolve) => {
    const child = spawn(npm, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...env } });
    child.on('error', (error) => {
      context.say(`${context.err.red('lich:')} could not run ${npm}: ${error.message}`);
      resolve(1);
    });
    child.on('close', (status) => resolve(status ?? 1));
  });
  if (code !== 0) {
    context.say(`${context.err.red('lich:')} ${npm} install failed (exit ${code})`);
    return EXIT.FAILURE;
  }
  context.io.stdout.write(`updated lich to ${latest.version}\n`);
  return EXIT.OK;
};
