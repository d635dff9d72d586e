/** A scheme followed by `//`: `http://`, `file://`, `gopher://`. */
const SCHEME_SLASHES = /^([a-z][a-z0-9+.-]*):\/\//i;
/** A scheme with no `//`: `javascript:…`, `data:…`, `mailto:…`. */
const SCHEME_ONLY = /^([a-z][a-z0-9+.-]*):/i;
/** `host:port` with no scheme, which providers take as `http://host:port`. */
const HOST_PORT = /^[^\s/:@]+:\d+(\/|$)/;

/**
 * What is wrong with a provider base URL, or undefined when it is usable: an `http://` or
 * `https://` URL, or `host:port[/path]` (taken as `http://`). Any other scheme (`file:`, `ftp:`,
 * `gopher:`, `javascript:`, `data:`) is refused: a model API is spoken over HTTP only, so such a
 * value is a config error, not something to retry. Pure; never throws.
 */
export function base_url_problem(value: string): string | undefined {
  const text = value.trim();
  if (text === '') return 'expected a URL, got an empty string';
  const scheme =
    SCHEME_SLASHES.exec(text)?.[1] ??
    (HOST_PORT.test(text) ? undefined : SCHEME_ONLY.exec(text)?.[1]);
  if (scheme !== undefined && !/^https?$/i.test(scheme)) {
    return `expected an http:// or https:// URL, got a ${scheme.toLowerCase()}: URL`;
  }
  try {
    new URL(scheme === undefined ? `http://${text}` : text);
  } catch {
    return `expected an http:// or https:// URL, got '${text}'`;
  }
  return undefined;
}
