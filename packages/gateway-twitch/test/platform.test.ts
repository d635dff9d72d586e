import { make_temp_dir, type TempDir } from '@lich/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { run_cli } from '../src/index.js';

let dir: TempDir | undefined;
afterEach(async () => {
  await dir?.cleanup();
  dir = undefined;
});

async function run(argv: string[], env: Record<string, string> = {}) {
  dir ??= await make_temp_dir({ prefix: 'lich-gateway-twitch-' });
  let stdout = '';
  let stderr = '';
  const code = await run_cli(argv, {
    env: { OPENAI_API_KEY: 'sk-test', ...env },
    cwd: dir.path,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe('the twitch command', () => {
  it('prints its help with the platform options and environment', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('TWITCH_USERNAME');
    expect(stdout).toMatch(/pair|--help/);
  });

  it('refuses to start without its credentials, naming the variable (exit 2)', async () => {
    const { code, stderr } = await run(['--channel', 'stream', '--allow-user', '1']);
    expect(code).toBe(2);
    expect(stderr).toContain('TWITCH_USERNAME');
  });
});
