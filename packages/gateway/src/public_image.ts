import { byte_size_text, type ImageIntake, image_from_bytes } from '@lich/core';
import {
  check_web_target,
  node_web_connector,
  parse_web_url,
  system_resolver,
  type WebConnector,
  type WebResolver,
} from '@lich/tools';

/** How long one picture may take to download. */
const DOWNLOAD_TIMEOUT_MS = 60_000;

/** What `fetch_public_image` may fetch, and what it takes. */
export interface PublicImageOptions {
  /**
   * The hosts the operator allows pictures from: `images.example.com`, or `*.example.com` for its
   * subdomains. Empty: no URL is fetched.
   */
  allowed_hosts: readonly string[];
  /** The largest picture taken, in bytes. */
  max_bytes: number;
  /** The media type the sender declared; it must match the bytes. */
  media_type?: string | undefined;
  name?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Resolves names (the system resolver by default); tests inject one. */
  resolve?: WebResolver;
  /** Sends the one checked request (`node_web_connector` by default); tests inject one. */
  connect?: WebConnector;
}

/** True when `host` is one of `allowed` (`*.example.com` covers its subdomains, not itself). */
export function host_in_list(host: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => {
    const wanted = entry.toLowerCase();
    return wanted.startsWith('*.') ? host.endsWith(wanted.slice(1)) : host === wanted;
  });
}

/**
 * Fetches a picture a sender gave by URL (a webhook's payload), with no way through to the
 * operator's own network: the host must be on the operator's `allowed_hosts`, and even then the
 * name is resolved once and every address checked (`check_web_target`, the guard of `web_fetch`):
 * a loopback, private, link-local or otherwise internal address is refused, and the request goes
 * to the checked address only. No redirect is followed; the body is cut at `max_bytes`.
 *
 * Contract: never throws; a refusal says why in words fit for the sender.
 */
export async function fetch_public_image(
  url: string,
  options: PublicImageOptions,
): Promise<ImageIntake> {
  const { max_bytes } = options;
  if (options.allowed_hosts.length === 0) {
    return {
      ok: false,
      error: 'pictures are not fetched from URLs here: send them as base64 data',
    };
  }
  const parsed = parse_web_url(url, []);
  if ('refused' in parsed) return { ok: false, error: parsed.refused };
  if (!host_in_list(parsed.host, options.allowed_hosts)) {
    return { ok: false, error: `pictures are not fetched from ${parsed.host}: it is not allowed` };
  }
  const timeout = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
  const signal =
    options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
  // the allow list of the guard stays empty: a listed host still may not be an internal address
  const target = await check_web_target(url, [], options.resolve ?? system_resolver, signal);
  if ('refused' in target) return { ok: false, error: target.refused };
  try {
    const response = await (options.connect ?? node_web_connector)({
      target,
      headers: { accept: 'image/png, image/jpeg, image/gif, image/webp', 'user-agent': 'lich' },
      max_bytes: max_bytes + 1,
      signal,
    });
    if (response.status !== 200) {
      return {
        ok: false,
        error: `the picture could not be downloaded (HTTP ${response.status}; redirects are not followed)`,
      };
    }
    if (response.truncated || response.body.length > max_bytes) {
      return { ok: false, error: `the picture is over the limit of ${byte_size_text(max_bytes)}` };
    }
    return image_from_bytes(response.body, {
      max_bytes,
      ...(options.media_type === undefined ? {} : { media_type: options.media_type }),
      ...(options.name === undefined ? {} : { name: options.name }),
    });
  } catch {
    return {
      ok: false,
      error: timeout.aborted
        ? 'the picture took too long to download'
        : 'the picture could not be downloaded',
    };
  }
}
