import { resolve } from 'node:path';
import { type ParsedValues, parse_command_args, string_option } from '../args.js';
import type { Command, CommandContext } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { UsageError } from '../usage_error.js';

const SUBCOMMANDS = ['list', 'add', 'enable', 'disable', 'remove'];

function pairs(
  values: ParsedValues[string],
  separator: string,
  flag: string,
): Record<string, string> | undefined {
  const list = (Array.isArray(values) ? values : values === undefined ? [] : [values]).filter(
    (value): value is string => typeof value === 'string',
  );
  if (list.length === 0) return undefined;
  const result: Record<string, string> = {};
  for (const item of list) {
    const at = item.indexOf(separator);
    if (at <= 0) {
      throw new UsageError(`--${flag} expects NAME${separator}value, got '${item}'`, 'mcp');
    }
    result[item.slice(0, at).trim()] = item.slice(at + separator.length).trim();
  }
  return result;
}

/**
 * `lich mcp list`: each server with its state and, unless `--no-check`, whether it starts and how
 * many tools it offers (each enabled server is started once and stopped again, as `claude mcp
 * list` does); exits 1 when an enabled server does not start.
 */
async function list(
  context: CommandContext,
  work_dir: string,
  json: boolean,
  check: boolean,
): Promise<number> {
  const { list_mcp_servers, check_mcp_servers } = await import('@lich/mcp');
  const result = await list_mcp_servers(work_dir);
  if (!result.ok) {
    context.say(`${context.err.red('lich:')} ${result.error}`);
    return EXIT.USAGE;
  }
  if (check && !json && result.servers.some((server) => server.enabled)) {
    context.say(context.err.dim('checking the enabled servers…'));
  }
  const health = check ? await check_mcp_servers(work_dir) : new Map();
  const failed = [...health.values()].some((entry) => !entry.ok);
  if (json) {
    const servers = result.servers.map((server) => {
      const found = health.get(server.name);
      return found === undefined ? server : { ...server, health: found };
    });
    context.io.stdout.write(`${JSON.stringify(servers, null, 2)}\n`);
    return failed ? EXIT.FAILURE : EXIT.OK;
  }
  if (result.servers.length === 0) {
    context.say(`no MCP servers in ${result.path} (add one: lich mcp add <name> -- <command>)`);
    return EXIT.OK;
  }
  const width = Math.max(...result.servers.map((server) => server.name.length));
  for (const server of result.servers) {
    const state = server.enabled ? context.out.green('enabled ') : context.out.dim('disabled');
    const problem = server.problem ? `  ${context.out.red(server.problem)}` : '';
    const found = health.get(server.name);
    const status =
      found === undefined
        ? ''
        : found.ok
          ? `  ${context.out.green('✓')} ${found.tools} tool${found.tools === 1 ? '' : 's'}`
          : `  ${context.out.red('✗')} ${found.error.split('\n')[0]}`;
    context.io.stdout.write(
      `${server.name.padEnd(width)}  ${state}  ${server.kind.padEnd(5)}  ${server.target}${status}${problem}\n`,
    );
  }
  return failed ? EXIT.FAILURE : EXIT.OK;
}

/**
 * Warns about each `--header` and `--env` value that holds a secret as written (a bearer token,
 * a key, a variable named like a credential): the project file is meant to be committed, so the
 * warning shows the `${VAR}` form, which is read from the environment when the server starts.
 */
async function warn_literal_secrets(
  context: CommandContext,
  path: string,
  env: Record<string, string> | undefined,
  headers: Record<string, string> | undefined,
): Promise<void> {
  const { redact_config } = await import('@lich/agent');
  const redacted = redact_config({ env: env ?? {}, headers: headers ?? {} }) as {
    env: Record<string, unknown>;
    headers: Record<string, unknown>;
  };
  const variable = (name: string) =>
    name
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_|_$/g, '');
  for (const [header, value] of Object.entries(headers ?? {})) {
    if (value.includes('${') || redacted.headers[header] === value) continue;
    const scheme = /^(Bearer|Basic|Token)\s+/i.exec(value)?.[0] ?? '';
    const suggested = header.toLowerCase() === 'authorization' ? 'MCP_TOKEN' : variable(header);
    context.warn(
      `the header '${header}' holds a secret as written in ${path}, a file often committed. Keep it in a variable instead: --header "${header}: ${scheme}\${${suggested}}" (\${VAR} is read from the environment when the server starts)`,
    );
  }
  for (const [name, value] of Object.entries(env ?? {})) {
    if (value.includes('${') || redacted.env[name] === value) continue;
    context.warn(
      `--env ${name} holds a secret as written in ${path}, a file often committed. Pass it through instead: --env '${name}=\${${name}}' (\${VAR} is read from the environment when the server starts)`,
    );
  }
}

/** `lich mcp list|add|enable|disable|remove` against `<work_dir>/.lich/config.json`. */
export const command_mcp: Command = async (context) => {
  const separator = context.argv.indexOf('--');
  const own = separator === -1 ? context.argv : context.argv.slice(0, separator);
  const command_line = separator === -1 ? [] : context.argv.slice(separator + 1);
  const { values, positionals } = parse_command_args('mcp', own, {
    'work-dir': { type: 'string', short: 'C' },
    help: { type: 'boolean', short: 'h' },
    json: { type: 'boolean' },
    'no-check': { type: 'boolean' },
    url: { type: 'string' },
    env: { type: 'string', multiple: true },
    header: { type: 'string', multiple: true },
  });
  const [subcommand, name, ...extra] = positionals;
  if (values.help || subcommand === undefined) {
    context.io.stdout.write(`${help_text('mcp')}\n`);
    return values.help ? EXIT.OK : EXIT.USAGE;
  }
  if (!SUBCOMMANDS.includes(subcommand)) {
    throw new UsageError(`unknown subcommand 'mcp ${subcommand}'`, 'mcp', {
      word: subcommand,
      candidates: SUBCOMMANDS,
    });
  }
  const work_dir = resolve(context.io.cwd, string_option(values['work-dir']) ?? '.');
  const { access } = await import('node:fs/promises');
  try {
    await access(work_dir);
  } catch {
    context.say(`${context.err.red('lich:')} work dir ${work_dir} does not exist`);
    return EXIT.USAGE;
  }
  if (subcommand === 'list') {
    return list(context, work_dir, values.json === true, values['no-check'] !== true);
  }
  if (name === undefined) throw new UsageError(`mcp ${subcommand} needs a server name`, 'mcp');
  if (extra.length > 0) {
    throw new UsageError(
      `unexpected '${extra.join(' ')}'${subcommand === 'add' ? ' (put the server command after --)' : ''}`,
      'mcp',
    );
  }
  const mcp = await import('@lich/mcp');
  let result: { ok: true; path: string } | { ok: false; error: string };
  // a server that starts a command or sends ${VAR}s waits for the folder's trust
  let waits_for_trust = false;
  if (subcommand === 'add') {
    const url = string_option(values.url);
    if ((url === undefined) === (command_line.length === 0)) {
      throw new UsageError('mcp add needs either -- <command> [args…] or --url <url>', 'mcp');
    }
    const env = pairs(values.env, '=', 'env');
    const headers = pairs(values.header, ':', 'header');
    const config =
      url === undefined
        ? {
            command: command_line[0] as string,
            ...(command_line.length > 1 ? { args: command_line.slice(1) } : {}),
            ...(env ? { env } : {}),
          }
        : { url, ...(headers ? { headers } : {}) };
    waits_for_trust = url === undefined || JSON.stringify(headers ?? {}).includes('${');
    result = await mcp.add_mcp_server(work_dir, name, config);
    if (result.ok) await warn_literal_secrets(context, result.path, env, headers);
  } else if (subcommand === 'remove') {
    result = await mcp.remove_mcp_server(work_dir, name);
  } else {
    result = await mcp.set_mcp_server_enabled(work_dir, name, subcommand === 'enable');
  }
  if (!result.ok) {
    context.say(`${context.err.red('lich:')} ${result.error}`);
    return EXIT.USAGE;
  }
  const done = { add: 'added', remove: 'removed', enable: 'enabled', disable: 'disabled' }[
    subcommand as 'add' | 'remove' | 'enable' | 'disable'
  ];
  context.say(`${done} MCP server '${name}' in ${result.path}`);
  if (waits_for_trust) {
    const { folder_trust } = await import('@lich/agent');
    if ((await folder_trust(work_dir, context.io.env)).state !== 'trusted') {
      // the project's file is where it went: Lich cannot tell who wrote it, so it waits for trust
      context.say('  it is used once this folder is trusted (lich trust, or --trust for one run)');
    }
  }
  return EXIT.OK;
};
