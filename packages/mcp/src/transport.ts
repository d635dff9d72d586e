/**
 * The SDK transport for one catalog entry: a child process over stdio (with only the environment
 * the config names, plus PATH and HOME), or Streamable HTTP / SSE with the configured headers.
 */
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { Stream } from 'node:stream';
import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import {
  DEFAULT_INHERITED_ENV_VARS,
  StdioClientTransport,
} from '@modelcontextprotocol/client/stdio';
import { is_stdio_server, type McpServerConfig } from './catalog.js';
import { expand_env, expand_env_record } from './expand_env.js';

/** How a stdio server's process ended: its exit code, or the signal that killed it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The SDK's stdio transport, remembering how the child exited (the SDK drops the exit code):
 * `exit` is set before `onclose` runs, since a child's `exit` event precedes its `close`.
 */
export class ExitAwareStdioTransport extends StdioClientTransport {
  /** How the process ended, once it has. */
  exit: ProcessExit | undefined;

  override start(): Promise<void> {
    const started = super.start();
    // the SDK spawns synchronously inside start(); its child is a private field
    const child = (this as unknown as { _process?: ChildProcess })._process;
    child?.once('exit', (code, signal) => {
      this.exit = { code, signal };
    });
    return started;
  }
}

/** `exit code 3`, `killed by SIGKILL`, or undefined before the process ended. */
export function exit_text(transport: unknown): string | undefined {
  if (!(transport instanceof ExitAwareStdioTransport) || transport.exit === undefined) {
    return undefined;
  }
  const { code, signal } = transport.exit;
  if (signal !== null) return `killed by ${signal}`;
  return code === null ? undefined : `exit code ${code}`;
}

/**
 * The largest single message accepted from a stdio server. The SDK's default (10 MB) would turn a
 * 10 MB tool result into a dropped connection; the result is clamped after parsing instead.
 */
export const MAX_STDIO_MESSAGE_BYTES = 64 * 1024 * 1024;

/** A transport ready for `Client.connect`, and what must never appear in error text. */
export type BuiltTransport =
  | {
      ok: true;
      transport: Transport;
      /** Configured env and header values, for redaction. */
      secrets: string[];
      /** `${VAR}` references whose variable is not set. */
      missing: string[];
      /** The process's stderr for a stdio server (already piped), else undefined. */
      stderr: Stream | undefined;
    }
  | { ok: false; error: string };

export interface BuildTransportOptions {
  /** Where a relative `cwd` is resolved, and the default `cwd` of a child. */
  work_dir: string;
  /** The environment `${VAR}` references read (Lich's own by default). */
  source_env?: NodeJS.ProcessEnv;
}

/**
 * Builds the transport of one server; nothing is started yet.
 *
 * Contract: never throws; a URL that does not parse after `${VAR}` expansion gives `ok: false`.
 */
export function build_transport(
  config: McpServerConfig,
  options: BuildTransportOptions,
): BuiltTransport {
  const source = options.source_env ?? process.env;
  if (is_stdio_server(config)) {
    const command = expand_env(config.command, source);
    const args = (config.args ?? []).map((arg) => expand_env(arg, source));
    const env = expand_env_record(config.env, source);
    const transport = new ExitAwareStdioTransport({
      command: command.value,
      args: args.map((arg) => arg.value),
      env: child_env(env.values, source),
      cwd: resolve(options.work_dir, config.cwd ?? '.'),
      stderr: 'pipe',
      maxBufferSize: MAX_STDIO_MESSAGE_BYTES,
    });
    return {
      ok: true,
      transport,
      secrets: Object.values(env.values),
      missing: [...command.missing, ...args.flatMap((arg) => arg.missing), ...env.missing],
      stderr: transport.stderr ?? undefined,
    };
  }
  const url = expand_env(config.url, source);
  const headers = expand_env_record(config.headers, source);
  let parsed: URL;
  try {
    parsed = new URL(url.value);
  } catch {
    return { ok: false, error: `the url does not parse: ${url.value}` };
  }
  const secrets = Object.values(headers.values);
  if (parsed.password !== '') secrets.push(decodeURIComponent(parsed.password));
  const init = { requestInit: { headers: headers.values } };
  const transport =
    config.transport === 'sse'
      ? new SSEClientTransport(parsed, init)
      : new StreamableHTTPClientTransport(parsed, init);
  return {
    ok: true,
    transport,
    secrets,
    missing: [...url.missing, ...headers.missing],
    stderr: undefined,
  };
}

/**
 * The whole environment of a child: PATH and HOME from `source`, then the configured variables.
 * The SDK adds a few variables of its own choosing (LOGNAME, SHELL, TERM, USER…) to whatever it is
 * given; each of those not configured is passed as `undefined`, which Node's spawn leaves out.
 * On Windows the SDK's list (SYSTEMROOT, APPDATA, TEMP…) is what a process needs to run at all,
 * so there it is kept.
 */
export function child_env(
  configured: Readonly<Record<string, string>>,
  source: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const env: Record<string, string | undefined> = {};
  if (platform !== 'win32') {
    for (const key of DEFAULT_INHERITED_ENV_VARS) env[key] = undefined;
  }
  if (source.PATH !== undefined) env.PATH = source.PATH;
  if (source.HOME !== undefined) env.HOME = source.HOME;
  Object.assign(env, configured);
  // the SDK's type says string; undefined entries are how a default is removed (see above)
  return env as Record<string, string>;
}
