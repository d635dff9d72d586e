import { byte_size_text, type ImageIntake, image_from_bytes } from '@lich/core';

/** How long one picture may take to download. */
const DOWNLOAD_TIMEOUT_MS = 60_000;

/** What `download_image` fetches, and what it takes. */
export interface DownloadImageOptions {
  /**
   * The hosts the picture may come from: the platform's own file host (`api.telegram.org`,
   * `cdn.discordapp.com`). An entry is a host name (`cdn.discordapp.com`) or a host and port
   * (`127.0.0.1:8081`, for a local Bot API server or a test's fake).
   */
  allowed_hosts: readonly string[];
  /** The largest picture taken, in bytes. */
  max_bytes: number;
  /** The size the platform reported, checked before anything is fetched. */
  declared_bytes?: number | undefined;
  /** The media type the platform reported; it must match the bytes. */
  media_type?: string | undefined;
  name?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Downloads a picture from a chat platform's own file host and checks it (`image_from_bytes`).
 *
 * Contract: never throws; fetches nothing when the URL's host is not in `allowed_hosts`, when it
 * is not http(s), or when `declared_bytes` is over the cap; follows no redirect; stops reading
 * (and refuses) once the body passes `max_bytes`, whatever `content-length` said. A refusal's
 * words never hold the URL (a Telegram file URL carries the bot's token).
 */
export async function download_image(
  url: string,
  options: DownloadImageOptions,
): Promise<ImageIntake> {
  const { max_bytes } = options;
  const over = (size?: number): ImageIntake => ({
    ok: false,
    error:
      size === undefined
        ? `the picture is over the limit of ${byte_size_text(max_bytes)}`
        : `the picture is ${byte_size_text(size)}, over the limit of ${byte_size_text(max_bytes)}`,
  });
  if (options.declared_bytes !== undefined && options.declared_bytes > max_bytes) {
    return over(options.declared_bytes);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, error: 'the picture has no valid address' };
  }
  const allowed = options.allowed_hosts.map((host) => host.toLowerCase());
  if (
    (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') ||
    !(allowed.includes(parsed.hostname) || allowed.includes(parsed.host))
  ) {
    return { ok: false, error: `pictures are taken only from ${options.allowed_hosts.join(', ')}` };
  }
  const timeout = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
  const signal =
    options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
  try {
    const response = await fetch(parsed, { redirect: 'error', signal });
    if (response.status !== 200 || response.body === null) {
      await response.body?.cancel();
      return { ok: false, error: `the picture could not be downloaded (HTTP ${response.status})` };
    }
    const length = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(length) && length > max_bytes) {
      await response.body.cancel();
      return over(length);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > max_bytes) {
        await reader.cancel();
        return over();
      }
      chunks.push(value);
    }
    return image_from_bytes(Buffer.concat(chunks), {
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
