/**
 * The URL of an API endpoint, built from a base URL as people write it in a config. Surrounding
 * spaces are trimmed; a base without a scheme (`localhost:8000`) is taken as `http://` (it would
 * otherwise parse as scheme `localhost:`); trailing slashes are dropped from its path, which
 * `to_path` then turns into the endpoint's path (`''` for a bare origin). Query and fragment of
 * the base are kept.
 *
 * A provider writes the rule of its API in `to_path`, e.g. "append `/v1/messages` unless the base
 * already ends in `/messages`, and `/v1` only where it is missing".
 *
 * Contract: pure; throws a `TypeError` for a string that is no URL at all (a config error); what
 * `to_path` throws is passed on.
 */
export function endpoint_url(base_url: string, to_path: (base_path: string) => string): string {
  const trimmed = base_url.trim();
  const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`);
  url.pathname = to_path(url.pathname.replace(/\/+$/, ''));
  return url.toString();
}
