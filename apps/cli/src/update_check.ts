import { access } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';

/** The npm registry asked when `LICH_NPM_REGISTRY` (or `npm_config_registry`) is not set. */
export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org';

/** The package `lich update` installs. */
export const CLI_PACKAGE = '@lich/cli';

/**
 * Compares two versions `a.b.c[-pre]`: negative when `a` is older, 0 when equal, positive when
 * newer. A prerelease is older than its release. Pure; never throws (unparsable parts count 0).
 */
export function compare_versions(a: string, b: string): number {
  const split = (version: string) => {
    const [core = '', pre] = version.trim().replace(/^v/, '').split('-', 2);
    return { parts: core.split('.').map((part) => Number.parseInt(part, 10) || 0), pre };
  };
  const left = split(a);
  const right = split(b);
  for (let index = 0; index < 3; index++) {
    const difference = (left.parts[index] ?? 0) - (right.parts[index] ?? 0);
    if (difference !== 0) return difference;
  }
  if (left.pre === right.pre) return 0;
  if (left.pre === undefined) return 1;
  if (right.pre === undefined) return -1;
  return left.pre < right.pre ? -1 : 1;
}

/**
 * The root of the git clone `package_dir` lives in, or null when it is an installed package (any
 * folder on the way up is `node_modules`) or no `.git` is found. Never throws.
 */
export async function git_checkout_of(package_dir: string): Promise<string | null> {
  if (package_dir.split(sep).includes('node_modules')) return null;
  let folder = package_dir;
  for (;;) {
    try {
      await access(join(folder, '.git'));
      return folder;
    } catch {
      // keep walking up
    }
    const parent = dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
}

/**
 * Asks `registry` for the latest version of `name` (the `latest` dist-tag of its abbreviated
 * metadata). Resolves with `{ ok: false, error }` when the registry cannot be reached or answers
 * something else; never rejects.
 */
export async function latest_version(
  registry: string,
  name: string,
  options: { signal?: AbortSignal; timeout_ms?: number } = {},
): Promise<{ ok: true; version: string } | { ok: false; error: string }> {
  const url = `${registry.replace(/\/+$/, '')}/${name.replace('/', '%2f')}`;
  const timeout = AbortSignal.timeout(options.timeout_ms ?? 10_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await fetch(url, {
      headers: { accept: 'application/vnd.npm.install-v1+json, application/json' },
      signal,
    });
    if (response.status === 404) return { ok: false, error: `${name} is not on ${registry}` };
    if (!response.ok) return { ok: false, error: `${registry} answered HTTP ${response.status}` };
    const body = (await response.json()) as { 'dist-tags'?: { latest?: unknown } };
    const latest = body['dist-tags']?.latest;
    if (typeof latest !== 'string')
      return { ok: false, error: `${registry} gave no latest version` };
    return { ok: true, version: latest };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `could not reach ${registry}: ${reason}` };
  }
}
