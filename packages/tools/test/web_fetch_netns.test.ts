import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe_gated, netns_gate } from '@lich/testkit/gates';
import { expect, it } from 'vitest';

const HERE = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(HERE, 'fixtures', 'web_fetch_netns.mjs');
// built by the suite's global setup
const TOOLS_DIST = pathToFileURL(join(HERE, '..', 'dist', 'index.js')).href;

interface NetnsResult {
  results: { url: string; network: unknown; ok: boolean; output: string }[];
  hits: string[];
}

describe_gated([netns_gate()], 'web_fetch in a network namespace with only its loopback', () => {
  it('refuses every local and private target with the real resolver and connector', () => {
    // lo is brought up when `ip` is there, so the loopback server cases run too
    const run = spawnSync(
      'unshare',
      [
        '-n',
        'sh',
        '-c',
        'if ip link set lo up 2>/dev/null; then up=lo-up; else up=lo-down; fi; exec "$0" "$1" "$2" "$up"',
        process.execPath,
        SCRIPT,
        TOOLS_DIST,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const { results, hits } = JSON.parse(run.stdout) as NetnsResult;
    const refused = results.filter((result) => result.network === false);
    expect(refused).toHaveLength(9);
    for (const result of refused) {
      expect(result.ok, result.url).toBe(false);
      // refused by the filter, never a connection that failed
      expect(result.output, result.url).toContain('Refused:');
      expect(result.output, result.url).not.toContain('Could not fetch');
    }
    const by_url = (url: string) => results.find((result) => result.url === url)?.output ?? '';
    expect(by_url('http://localhost/')).toContain('localhost resolves to');
    expect(by_url('http://0x7f.1/')).toContain('loopback');
    const allowed = results.filter((result) => result.network !== false);
    if (allowed.length > 0) {
      const [away, page] = allowed;
      expect(away?.ok).toBe(false);
      expect(away?.output).toContain('10.0.0.1 is private');
      expect(page?.ok).toBe(true);
      expect(page?.output).toContain('loopback page');
      // the refused loopback fetch never reached the server
      expect(hits).toEqual(['/away', '/page']);
    }
  });
});
