import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AllowListProxy, start_allow_list_proxy } from '../src/sandbox/sandbox_proxy.js';

let dir: string;
let server: Server;
let port: number;
let proxy: AllowListProxy;
let socket: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lich-proxy-'));
  server = createServer((incoming, response) => response.end(`hello ${incoming.url}`));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
  socket = join(dir, 'proxy.sock');
  proxy = await start_allow_list_proxy({ socket }, ['127.0.0.1']);
});

afterAll(async () => {
  await proxy.close();
  await new Promise((done) => server.close(done));
  await rm(dir, { recursive: true, force: true });
});

/** A request in absolute form through the proxy's socket: status and body. */
function get_through(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request({ socketPath: socket, path: url, method: 'GET' }, (answer) => {
      let body = '';
      answer.on('data', (chunk) => {
        body += chunk;
      });
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** A CONNECT tunnel through the proxy, then a plain GET inside it: the raw answer, or the refusal. */
function connect_through(target: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request({ socketPath: socket, method: 'CONNECT', path: target });
    sent.on('connect', (answer, tunnel) => {
      if (answer.statusCode !== 200) {
        resolve({ status: answer.statusCode ?? 0, text: '' });
        tunnel.destroy();
        return;
      }
      let text = '';
      tunnel.on('data', (chunk) => {
        text += chunk;
      });
      tunnel.on('end', () => resolve({ status: 200, text }));
      tunnel.write(`GET /tunnel HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`);
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('the allow-list proxy', () => {
  it('forwards a request in absolute form to a listed host', async () => {
    expect(await get_through(`http://127.0.0.1:${port}/a?b=1`)).toEqual({
      status: 200,
      body: 'hello /a?b=1',
    });
  });

  it('tunnels CONNECT to a listed host', async () => {
    const { status, text } = await connect_through(`127.0.0.1:${port}`);
    expect(status).toBe(200);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(text).toMatch(/hello \/tunnel$/);
  });

  it('refuses other hosts with 403, for both forms, and remembers them', async () => {
    const plain = await get_through(`http://localhost:${port}/`);
    expect(plain.status).toBe(403);
    expect(plain.body).toMatch(
      /Refused by the Lich sandbox: localhost:\d+ is not in sandbox\.network/,
    );
    expect((await connect_through(`localhost:${port}`)).status).toBe(403);
    expect([...proxy.refused]).toEqual(['localhost']);
  });
});
