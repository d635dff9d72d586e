/** Shared helpers of the tests that start real processes. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

function package_dir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/** The entry point of `@modelcontextprotocol/server-everything`. */
export const EVERYTHING = join(
  package_dir('@modelcontextprotocol/server-everything'),
  'dist/index.js',
);
/** The entry point of `@modelcontextprotocol/server-filesystem`. */
export const FILESYSTEM = join(
  package_dir('@modelcontextprotocol/server-filesystem'),
  'dist/index.js',
);
/** The raw JSON-RPC fake server (see its header for the modes). */
export const FAKE_SERVER = join(here, 'fixtures/fake_server.mjs');
/** The preload that binds a third-party server to 127.0.0.1 and reports its port. */
export const LOOPBACK_LISTEN = join(here, 'fixtures/loopback_listen.mjs');

/** A fresh temp dir and its removal. */
export async function temp_dir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'lich-mcp-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Polls `check` every 20 ms until it is true or `timeout_ms` passes. */
export async function wait_for(check: () => boolean, timeout_ms = 5_000): Promise<void> {
  const deadline = Date.now() + timeout_ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('wait_for: condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Starts server-everything in an HTTP mode on 127.0.0.1 and `port` (0: a free one); resolves
 * once it listens. The caller kills the child.
 */
export function start_everything_http(
  mode: 'streamableHttp' | 'sse',
  port = 0,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', LOOPBACK_LISTEN, EVERYTHING, mode], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server-everything ${mode} did not start: ${text}`));
    }, 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /LICH_LISTENING (\d+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve({ child, port: Number(match[1]) });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything ${mode} exited with ${code}: ${text}`));
    });
  });
}

/** Kills a child and waits for it to be gone. */
export async function stop_child(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await gone;
}

/** A loopback port nothing listens on (bound, then released). */
export function closed_port(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
