/**
 * Why a server did not start, in words that say what to fix: a missing command, an unreachable
 * URL, silence at initialize, an early exit.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { is_stdio_server, type McpServerConfig } from './catalog.js';
import { describe_error, type McpSession } from './session.js';

/** Transport errors that may mean an HTTP server is gone. */
export const LOST_CONNECTION =
  /stream disconnected|fetch failed|ECONNREFUSED|ECONNRESET|EPIPE|terminated|socket hang up/i;

/** What `describe_start_error` needs to know. */
export interface StartFailure {
  name: string;
  config: McpServerConfig;
  timeout_ms: number;
  session: McpSession;
  error: unknown;
  aborted: boolean;
  /** Appends the session's context (transport error, junk output, stderr) to a message. */
  with_context: (message: string) => string;
}

/**
 * The message for a start that failed. Messages that the server's own output can explain get
 * `with_context`; the caller redacts the result. Never throws.
 */
export function describe_start_error(failure: StartFailure): string {
  const { config, error, session, with_context } = failure;
  const label = `MCP server '${failure.name}'`;
  if (failure.aborted) return `${label}: starting was aborted`;
  const code = (error as { code?: unknown } | null)?.code;
  if (is_stdio_server(config)) {
    if (code === 'ENOENT') {
      return `${label}: command not found: '${config.command}' (is it installed and on PATH?)`;
    }
    if (code === 'EACCES') return `${label}: permission denied running '${config.command}'`;
  } else {
    const refused = http_status(error) ?? session.http_status;
    if (refused !== undefined) {
      const hint =
        refused.status === 404 || refused.status === 405
          ? ' (is the URL right? MCP servers usually answer at a path such as /mcp or /sse)'
          : refused.status === 401 || refused.status === 403
            ? ' (check the Authorization header or token it needs)'
            : '';
      return `${label} answered HTTP ${refused.status}${refused.text ? ` ${refused.text}` : ''} at ${config.url}${hint}`;
    }
    const reason = describe_error(error);
    const transport_error = session.last_transport_error ?? '';
    if (LOST_CONNECTION.test(reason) || LOST_CONNECTION.test(transport_error)) {
      const detail = LOST_CONNECTION.test(reason) ? reason : transport_error;
      return `${label} could not be reached at ${config.url}: ${detail}`;
    }
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return with_context(`${label} did not answer initialize within ${failure.timeout_ms} ms`);
  }
  if (
    session.closed ||
    (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed)
  ) {
    const exit = session.exit;
    const what = is_stdio_server(config)
      ? `exited${exit === undefined ? '' : ` (${exit})`}`
      : 'closed the connection';
    return with_context(`${label} ${what} before answering initialize`);
  }
  return with_context(`${label} failed to initialize: ${describe_error(error)}`);
}

/** The HTTP status an SDK error carries (`SdkHttpError`), or undefined. */
export function http_status(error: unknown): { status: number; text: string } | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status !== 'number' || status < 400) return undefined;
  const text = (error as { statusText?: unknown }).statusText;
  return { status, text: typeof text === 'string' ? text : '' };
}
