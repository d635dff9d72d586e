import { isIP } from 'node:net';

/** The addresses that never need `allow_remote`. */
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', '::1', 'localhost'];

/** What the guard needs to know about the server. */
export interface GuardOptions {
  port: number;
  /** The address the server bound when it is not loopback (with `allow_remote`). */
  remote_host?: string;
  /** Origins a browser page may connect from, exactly (`http://localhost:5173`). */
  allow_origins?: readonly string[];
}

/** Why a request was refused before it reached the protocol, or null when it may go on. */
export type GuardVerdict = null | { status: 400 | 403; message: string };

/** True for `0.0.0.0` and `::`, which bind every interface. */
export function is_wildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

function bracket(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

function normalise_origin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}

/**
 * Checks an HTTP request (an upgrade or a plain GET) before anything else is done with it.
 *
 * Contract:
 * - `Host` must be exactly `127.0.0.1:PORT`, `localhost:PORT` or `[::1]:PORT` (DNS rebinding:
 *   a page on `evil.example` that resolves to 127.0.0.1 still sends `Host: evil.example`); a
 *   server bound to another address with `allow_remote` also takes that address, and one bound to
 *   every interface takes any IP literal (never a name) with its port;
 * - a request carrying an `Origin` is refused unless that origin is on `allow_origins` (compared
 *   lowercased, without a trailing slash); `Origin: null` is refused likewise; a request without
 *   an `Origin` passes this check, which grants nothing: the token is still required;
 * - a URL with a query string is refused: the token never travels in a URL, where logs and
 *   histories keep it.
 */
export function guard_request(
  headers: { host?: string | undefined; origin?: string | undefined },
  url: string | undefined,
  options: GuardOptions,
): GuardVerdict {
  const host = (headers.host ?? '').toLowerCase();
  const allowed = new Set(
    ['127.0.0.1', 'localhost', '[::1]'].map((name) => `${name}:${options.port}`),
  );
  if (options.remote_host !== undefined && !is_wildcard(options.remote_host)) {
    allowed.add(`${bracket(options.remote_host.toLowerCase())}:${options.port}`);
  }
  let host_ok = allowed.has(host);
  if (!host_ok && options.remote_host !== undefined && is_wildcard(options.remote_host)) {
    const match = /^(\[[0-9a-f:.]+\]|[0-9.]+):(\d+)$/.exec(host);
    const name = match?.[1]?.replace(/^\[|\]$/g, '') ?? '';
    host_ok = match !== null && Number(match[2]) === options.port && isIP(name) !== 0;
  }
  if (!host_ok) return { status: 403, message: `Host '${headers.host ?? ''}' is not this server` };
  if (headers.origin !== undefined) {
    const origin = normalise_origin(headers.origin);
    const allowed_origins = (options.allow_origins ?? []).map(normalise_origin);
    if (!allowed_origins.includes(origin)) {
      return { status: 403, message: `Origin '${headers.origin}' is not allowed` };
    }
  }
  if (url?.includes('?')) {
    return {
      status: 400,
      message: 'no query string: the token goes in Authorization: Bearer or in initialize',
    };
  }
  return null;
}
