/**
 * The command-line test of every `@lich/gateway-<platform>`: its `run_cli` (what its bin and
 * `lich gateway <platform>` run) prints help naming the credential variable, and refuses to start
 * without that credential with exit 2, naming it. Each call runs in a temp folder of its own,
 * removed after it.
 */
import { describe, expect, it } from 'vitest';
import { make_temp_dir } from './temp_dir.js';

/** A gateway package's `run_cli`, as far as this suite uses it. */
export type GatewayRunCli = (
  argv: readonly string[],
  io: {
    env: Record<string, string>;
    cwd: string;
    stdout: { write(text: string): unknown };
    stderr: { write(text: string): unknown };
  },
) => Promise<number>;

/** One gateway package's command-line test. */
export interface GatewayCliSpec {
  platform: string;
  run_cli: GatewayRunCli;
  /** The environment variable that holds the platform credential the command asks for. */
  credential: string;
  /** Arguments that pass the option checks, so that only the credential is missing. */
  start_args: readonly string[];
}

/** What one `run_cli` call exited with and wrote. */
export interface GatewayCliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `run_cli` with `argv` in a fresh temp folder, with a fake OpenAI key and `env` on top,
 * capturing what it writes. Removes the folder afterwards.
 */
export async function run_gateway_cli(
  run_cli: GatewayRunCli,
  argv: readonly string[],
  env: Record<string, string> = {},
): Promise<GatewayCliRun> {
  const dir = await make_temp_dir({ prefix: 'lich-gateway-cli-' });
  let stdout = '';
  let stderr = '';
  try {
    const code = await run_cli(argv, {
      env: { OPENAI_API_KEY: 'sk-test', ...env },
      cwd: dir.path,
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    });
    return { code, stdout, stderr };
  } finally {
    await dir.cleanup();
  }
}

/** Registers the suite for one gateway package; call it at the top of a test file. */
export function gateway_cli_suite(spec: GatewayCliSpec): void {
  describe(`the ${spec.platform} command`, () => {
    it('prints its help with the platform options and environment', async () => {
      const { code, stdout } = await run_gateway_cli(spec.run_cli, ['--help']);
      expect(code).toBe(0);
      expect(stdout).toContain(spec.credential);
      expect(stdout).toMatch(/pair|--help/);
    });

    it('refuses to start without its credentials, naming the variable (exit 2)', async () => {
      const { code, stderr } = await run_gateway_cli(spec.run_cli, spec.start_args);
      expect(code).toBe(2);
      expect(stderr).toContain(spec.credential);
    });
  });
}
