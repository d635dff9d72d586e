import { host_allowed } from '../sandbox/sandbox_proxy.js';
import { ip_bytes, refused_range } from './ip_ranges.js';

/** One address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (all of them). Rejects when the name has none. */
export type WebResolver = (host: string, signal: AbortSignal) => Promise<ResolvedAddress[]>;

/** Where a fetch will connect: the parsed URL and the one address that was checked. */
export interface WebTarget {
  url: URL;
  /** The host as the allow list and the `domain:` rules see it: lower case, no brackets. */
  host: string;
  port: number;
  address: string;
  family: 4 | 6;
  /** True when a `sandbox.network` entry allowed this host (private addresses, other ports). */
  allowed_by_list: boolean;
}

/** A URL a fetch may not reach, and why, in words the model can act on. */
export interface WebRefusal {
  refused: string;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * Reads `text` as a URL the way a browser does (the WHATWG parser: `http://0x7f.1/`,
 * `http://2130706433/` and `http://0177.0.0.1/` all become `127.0.0.1`), and checks what can be
 * checked before any name is resolved: the scheme (http or https), credentials, the port.
 *
 * Contract: pure, never throws; the URL, or a refusal.
 */
export function parse_web_url(
  text: string,
  allowed: readonly string[],
): { url: URL; host: string; port: number } | WebRefusal {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return { refused: `'${text}' is not a URL. Give an absolute http:// or https:// URL.` };
  }
  const default_port = DEFAULT_PORTS[url.protocol];
  if (default_port === undefined) {
    return { refused: `Refused: only http and https URLs are fetched, not ${url.protocol}` };
  }
  if (url.username !== '' || url.password !== '') {
    return { refused: 'Refused: a URL with a user name or password in it is not fetched.' };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === '') return { refused: `'${text}' names no host.` };
  const port = url.port === '' ? default_port : Number(url.port);
  if (port !== default_port && !host_allowed(host, port, allowed)) {
    return {
      refused: `Refused: port ${port} of ${host}; only ports 80 and 443 are fetched unless sandbox.network lists '${host}:${port}'.`,
    };
  }
  return { url, host, port };
}

/**
 * Checks `text` and finds the one address to connect to: the literal address of the URL, or the
 * first address its name resolves to, every address of the name being checked.
 *
 * Contract: never throws, rejects only if `resolve` throws synchronously (it should not). A
 * loopback, private, link-local, CGNAT, multicast, reserved or unique-local address (IPv4-mapped
 * forms included) is refused unless `allowed` (the `sandbox.network` list) names the host; a name
 * of which any address is refused is refused, so a name with a public and a private address cannot
 * be played. The caller connects to `address` and never resolves the name again.
 */
export async function check_web_target(
  text: string,
  allowed: readonly string[],
  resolve: WebResolver,
  signal: AbortSignal,
): Promise<WebTarget | WebRefusal> {
  const parsed = parse_web_url(text, allowed);
  if ('refused' in parsed) return parsed;
  const { url, host, port } = parsed;
  const allowed_by_list = host_allowed(host, port, allowed);
  const literal = ip_bytes(host);
  let addresses: ResolvedAddress[];
  if (literal !== undefined) {
    addresses = [{ address: host, family: literal.length === 4 ? 4 : 6 }];
  } else {
    try {
      addresses = await resolve(host, signal);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { refused: `The name ${host} could not be resolved (${reason}).` };
    }
    if (addresses.length === 0) return { refused: `The name ${host} has no address.` };
  }
  if (!allowed_by_list) {
    for (const { address } of addresses) {
      const why = refused_range(address);
      if (why === undefined) continue;
      const via =
        literal === undefined ? `${host} resolves to ${address}, which is` : `${address} is`;
      return {
        refused: `Refused: ${via} ${why}, not the public internet. A host on sandbox.network's list may be fetched.`,
      };
    }
  }
  const first = addresses[0] as ResolvedAddress;
  return { url, host, port, address: first.address, family: first.family, allowed_by_list };
}
