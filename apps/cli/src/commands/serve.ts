import type { SessionStorage } from '@lich/session';
import { parse_command_args, SERVE_OPTIONS, string_option } from '../args.js';
import { load_cli_config } from '../cli_config.js';
import type { Command, CommandContext } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { on_interrupt } from '../interrupt.js';
import { make_agent, report_no_provider } from '../make_agent.js';
import { UsageError } from '../usage_error.js';
import { version } from '../version.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** How long a stopping server lets runs finish before it aborts them. */
const SHUTDOWN_DEADLINE_MS = 5000;

function port_option(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) {
    throw new UsageError(`--port expects a port number (0 to 65535), got '${value}'`, 'serve');
  }
  return port;
}

/** What `--store` needs of `@lich/store-postgres` (an optional peer, typed here). */
interface StorePackage {
  open_postgres_session_storage(options: {
    url: string;
    application_name?: string;
  }): Promise<SessionStorage & { close(): Promise<void> }>;
}

/**
 * `--store postgres://…`: the session storage of `@lich/store-postgres`, imported only then; null
 * (having said how to install it) when the package is missing.
 */
async function open_store(
  context: CommandContext,
  url: string,
): Promise<(SessionStorage & { close(): Promise<void> }) | null> {
  if (!/^postgres(?:ql)?:\/\//i.test(url)) {
    throw new UsageError('--store must be a postgres:// URL', 'serve');
  }
  const name = '@lich/store-postgres';
  let store: StorePackage;
  try {
    store = (await import(name)) as StorePackage;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String(error).includes(name)) throw error;
    context.say(`${context.err.red('lich:')} --store needs ${name}. Install it next to lich:`);
    context.say(`  npm i -g ${name}`);
    return null;
  }
  return store.open_postgres_session_storage({ url, application_name: 'lich-serve' });
}

function process_alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `lich serve --print-token`: the running server's token, from its token file. */
async function print_token(context: CommandContext): Promise<number> {
  const { read_token_file, token_file_path } = await import('@lich/serve');
  const path = token_file_path(context.io.env);
  const file = await read_token_file(path);
  if (file === null || !process_alive(file.pid)) {
    context.say(
      `${context.err.red('lich:')} no lich serve is running (no live token file at ${path})`,
    );
    return EXIT.FAILURE;
  }
  context.io.stdout.write(`${file.token}\n`);
  context.say(context.err.dim(`${file.url} (pid ${file.pid})`));
  return EXIT.OK;
}

/**
 * Keeps stdout for the protocol alone: whatever else in the process writes there (a plugin's
 * `console.log`, a library's notice) goes to stderr. Returns the real writer.
 */
function claim_stdout(): NodeJS.WritableStream {
  const stdout = process.stdout;
  const real_write = stdout.write.bind(stdout);
  const to_stderr = ((chunk: unknown, ...rest: unknown[]) =>
    (process.stderr.write as (...args: unknown[]) => boolean)(
      chunk,
      ...rest,
    )) as typeof stdout.write;
  stdout.write = to_stderr;
  return {
    write: real_write,
    end: () => stdout.end(),
    on: stdout.on.bind(stdout),
    once: stdout.once.bind(stdout),
  } as unknown as NodeJS.WritableStream;
}

/**
 * `lich serve`: the session host over JSON-RPC, on a loopback WebSocket (token file, Host and
 * Origin checks) or, with `--stdio`, over stdin/stdout for a parent process.
 */
export const command_serve: Command = async (context) => {
  const { values, positionals } = parse_command_args('serve', context.argv, SERVE_OPTIONS);
  if (values.help) {
    context.io.stdout.write(`${help_text('serve')}\n`);
    return EXIT.OK;
  }
  if (positionals.length > 0) {
    throw new UsageError(`serve takes no arguments, got '${positionals.join(' ')}'`, 'serve');
  }
  if (values['print-token']) return print_token(context);
  const stdio = values.stdio === true;
  const hostname = string_option(values.host);
  const port = port_option(string_option(values.port));
  const allow_origins = (
    Array.isArray(values['allow-origin']) ? values['allow-origin'] : []
  ).filter((origin): origin is string => typeof origin === 'string');
  if (stdio && (hostname !== undefined || values.port !== undefined || allow_origins.length > 0)) {
    throw new UsageError('--stdio takes no --host, --port or --allow-origin', 'serve');
  }
  if (hostname !== undefined && !LOOPBACK.has(hostname) && values['allow-remote'] !== true) {
    throw new UsageError(
      `--host ${hostname} would expose Lich to the network; add --allow-remote if you mean it`,
      'serve',
    );
  }
  // before anything loads: in stdio mode nothing but the protocol may reach stdout
  const output = stdio && context.io.stdout === process.stdout ? claim_stdout() : context.io.stdout;

  const loaded = await load_cli_config(context, 'serve', values, {
    detect_providers: true,
    agent_flags: true,
  });
  if (loaded === null) return EXIT.USAGE;
  if (report_no_provider(context, loaded.config)) return EXIT.USAGE;
  const store_url = string_option(values.store);
  let storage: (SessionStorage & { close(): Promise<void> }) | null = null;
  if (store_url !== undefined) {
    try {
      storage = await open_store(context, store_url);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      context.say(`${context.err.red('lich:')} ${error instanceof Error ? error.message : error}`);
      return EXIT.FAILURE;
    }
    if (storage === null) return EXIT.USAGE;
    context.say(`lich serve: sessions in ${storage.location}`);
  }
  const agent = await make_agent(context, loaded.config, { quiet: false }, values.trust === true);
  const { create_session_host } = await import('@lich/agent');
  const host = create_session_host({
    agent,
    ...(storage === null ? {} : { storage }),
    on_warning: (text) => context.warn(text),
  });
  const serve = await import('@lich/serve');
  const server_info = { name: 'lich', version: version() };
  const log = context.io.env.LICH_DEBUG
    ? (line: string) => context.say(`lich serve: ${line}`)
    : undefined;
  const interrupt = on_interrupt(() => context.say('lich serve: stopping…'));
  try {
    if (stdio) {
      const server = serve.start_stdio_server({
        host,
        input: context.io.stdin,
        output,
        server_info,
        ...(log === undefined ? {} : { log }),
      });
      const stopped = new Promise<void>((resolve) =>
        interrupt.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      await Promise.race([server.closed, stopped]);
      server.close();
      return EXIT.OK;
    }
    if (hostname !== undefined && !LOOPBACK.has(hostname)) {
      context.warn(
        `listening on ${hostname}: anyone who can reach it and holds the token can run commands here`,
      );
    }
    const token = serve.make_token();
    const server = await serve.start_ws_server({
      host,
      token,
      port,
      ...(hostname === undefined
        ? {}
        : { hostname, allow_remote: values['allow-remote'] === true }),
      allow_origins,
      server_info,
      ...(log === undefined ? {} : { log }),
    });
    const token_path = serve.token_file_path(context.io.env);
    await serve.write_token_file(token_path, { url: server.url, token, pid: process.pid });
    context.say(`lich serve: listening on ${server.url} (token in ${token_path})`);
    await new Promise<void>((resolve) =>
      interrupt.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    await server.close();
    await serve.remove_token_file(token_path, process.pid);
    return EXIT.OK;
  } finally {
    interrupt.dispose();
    await host.shutdown({ deadline_ms: SHUTDOWN_DEADLINE_MS });
    await storage?.close();
  }
};
