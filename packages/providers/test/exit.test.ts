import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CERT_PATH,
  type Handler,
  sse_handler,
  start_wire_server,
  type WireServer,
} from './wire_server.js';

const CHILD = fileURLToPath(new URL('./children/post_and_exit.mjs', import.meta.url));
/** Far below the 4 s a kept-alive socket idles, and the 5 s the server keeps it open. */
const PROMPT_EXIT_MS = 1_000;

interface ChildRun {
  said: { events: number; error: { kind: string; message: string } | null; at: number };
  code: number | null;
  stderr: string;
  /** From the child's last line to its exit. */
  exit_delay_ms: number;
}

function run_child(args: string[], env: Record<string, string> = {}): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let said_at = 0;
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      if (stdout.endsWith('\n')) said_at = Date.now();
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      try {
        resolve({
          said: JSON.parse(stdout),
          code,
          stderr,
          exit_delay_ms: Date.now() - said_at,
        });
      } catch (error) {
        reject(new Error(`the child said ${JSON.stringify(stdout)} (${stderr})`, { cause: error }));
      }
    });
  });
}

const servers: WireServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
async function serve(handler: Handler, options: { tls?: boolean } = {}) {
  const server = await start_wire_server(handler, options);
  servers.push(server);
  return server;
}

describe('a process that used post_json', () => {
  it('exits right after its last request, its kept-alive connection reused and not holding it', async () => {
    const server = await serve(sse_handler(3));
    const run = await run_child([`${server.url}/chat`, '2']);
    expect(run.said).toMatchObject({ events: 6, error: null });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.exit_delay_ms).toBeLessThan(PROMPT_EXIT_MS);
    expect(server.connections).toBe(1);
  });

  it('streams over https (a CA added the usual way) and exits as promptly', async () => {
    const server = await serve(sse_handler(3), { tls: true });
    const run = await run_child([`${server.url}/chat`, '2'], {
      NODE_EXTRA_CA_CERTS: fileURLToPath(CERT_PATH),
    });
    expect(run.said).toMatchObject({ events: 6, error: null });
    expect(run.code).toBe(0);
    expect(run.exit_delay_ms).toBeLessThan(PROMPT_EXIT_MS);
    expect(server.connections).toBe(1);
  });

  it('exits right after an idle timeout, the stalled connection closed', async () => {
    const server = await serve((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n'); // then nothing
    });
    const run = await run_child([`${server.url}/chat`, '1', '150']);
    expect(run.said).toMatchObject({
      events: 1,
      error: { kind: 'timeout', message: 'child (m): timeout error: no data for 150 ms' },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.exit_delay_ms).toBeLessThan(PROMPT_EXIT_MS);
    await server.wait_closed(1);
  });
});
