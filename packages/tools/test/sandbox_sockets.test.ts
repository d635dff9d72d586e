/**
 * Finding X1: no local service is reachable from a sandboxed command through a unix socket. Run
 * against the machine's real PostgreSQL (trust auth: `COPY … TO PROGRAM` runs a program outside
 * the sandbox) and MariaDB (root, no password), and a listener of this test's own.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  describe_gated,
  MARIADB_SOCKET,
  POSTGRES_SOCKET_DIR,
  sandbox_gate,
  service_gate,
} from '@lich/testkit/gates';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ToolExecutor } from '../src/executor.js';
import { ToolRegistry } from '../src/registry.js';
import type { SandboxConfig } from '../src/sandbox/sandbox_config.js';
import { terminal_tool } from '../src/shell/terminal.js';

let base: string;
let work_dir: string;
let outside_socket: string;
let listener: Server;
const saved_agent = process.env.SSH_AUTH_SOCK;

function terminal(command: string, sandbox: Partial<SandboxConfig> = {}) {
  const registry = new ToolRegistry();
  registry.register(terminal_tool);
  return new ToolExecutor(registry, { work_dir, sandbox }).execute('terminal', {
    command,
    timeout_ms: 20_000,
  });
}

const PSQL = `psql -h ${POSTGRES_SOCKET_DIR} -U postgres -d postgres -Atc`;
const MYSQL = `timeout 5 mysql -uroot -S ${MARIADB_SOCKET} -N -e`;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'lich-sockets-')));
  work_dir = join(base, 'work');
  await mkdir(work_dir);
  // a listener outside the sandbox, as an ssh agent would be
  outside_socket = join(base, 'agent.sock');
  listener = createServer((socket) => socket.end('HELLO-FROM-OUTSIDE\n'));
  await new Promise<void>((done) => listener.listen(outside_socket, done));
  process.env.SSH_AUTH_SOCK = outside_socket;
});

afterAll(async () => {
  if (saved_agent === undefined) delete process.env.SSH_AUTH_SOCK;
  else process.env.SSH_AUTH_SOCK = saved_agent;
  await new Promise((done) => listener.close(done));
  await rm(base, { recursive: true, force: true });
});

const python_connect = (path: string) =>
  `python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('${path}'); print('UNIX-OK', s.recv(100))"`;

describe_gated([sandbox_gate()], 'unix sockets under bubblewrap (X1)', () => {
  it('reaches no listener outside the sandbox, and passes no SSH_AUTH_SOCK', async () => {
    const plain = await terminal(python_connect(outside_socket), { mode: 'off' });
    expect(plain.output).toContain('UNIX-OK'); // the listener answers outside the sandbox
    const sandboxed = await terminal(
      `${python_connect(outside_socket)}; echo "SSH_AUTH_SOCK=[$SSH_AUTH_SOCK]"; node -e "require('net').connect('${outside_socket}').on('data', (d) => console.log('NODE-OK', String(d))).on('error', (e) => console.log('node', e.code))"`,
    );
    expect(sandboxed.sandbox).toBe('bwrap');
    expect(sandboxed.output).not.toContain('UNIX-OK');
    expect(sandboxed.output).not.toContain('NODE-OK');
    expect(sandboxed.output).toContain('SSH_AUTH_SOCK=[]');
    expect(sandboxed.output).toMatch(
      /\[sandbox\] Commands may not use unix sockets.*sandbox\.allow_unix_sockets/,
    );
  });

  it('still runs what uses socket pairs (node child processes, python)', async () => {
    const result = await terminal(
      `echo 'process.send(41 + 1)' > child.cjs; node -e "require('child_process').fork('./child.cjs').on('message', (m) => console.log('child said', m))"; python3 -c "import socket; a, b = socket.socketpair(); a.send(b'x'); print('pair', b.recv(1))"`,
    );
    expect(result.output).toContain('child said 42');
    expect(result.output).toContain("pair b'x'");
  });
});

describe_gated(
  [sandbox_gate(), service_gate('postgresql')],
  'the machine PostgreSQL from the sandbox (X1)',
  () => {
    it('answers outside the sandbox and is out of reach inside it', async () => {
      const plain = await terminal(`${PSQL} "select 'PGREACH-'||current_user"`, { mode: 'off' });
      expect(plain.output).toContain('PGREACH-postgres');
      const sandboxed = await terminal(`${PSQL} "select 'PGREACH-'||current_user"`);
      expect(sandboxed.sandbox).toBe('bwrap');
      expect(sandboxed.ok).toBe(false);
      expect(sandboxed.output).not.toContain('PGREACH');
    });

    it('cannot run a program outside the sandbox through COPY … TO PROGRAM', async () => {
      const marker = join(tmpdir(), `lich-escaped-${randomBytes(6).toString('hex')}`);
      try {
        const result = await terminal(
          `${PSQL} "COPY (select 1) TO PROGRAM 'id > ${marker}'"; echo done`,
        );
        expect(result.output).toContain('done');
        expect(existsSync(marker)).toBe(false);
      } finally {
        rmSync(marker, { force: true });
      }
    });

    it('is reached when sandbox.allow_unix_sockets names its socket', async () => {
      const result = await terminal(`${PSQL} "select 'PGREACH-'||current_user"`, {
        allow_unix_sockets: [POSTGRES_SOCKET_DIR],
      });
      expect(result.sandbox).toBe('bwrap');
      expect(result.output).toContain('PGREACH-postgres');
    });
  },
);

describe_gated(
  [sandbox_gate(), service_gate('mariadb')],
  'the machine MariaDB from the sandbox (X1)',
  () => {
    it('answers outside the sandbox and is out of reach inside it', async () => {
      const query = `${MYSQL} 'select concat("MYREACH-",user())'`;
      expect((await terminal(query, { mode: 'off' })).output).toContain('MYREACH-root');
      const sandboxed = await terminal(query);
      expect(sandboxed.sandbox).toBe('bwrap');
      expect(sandboxed.output).not.toContain('MYREACH');
    });

    it('allows exactly the sockets listed: MariaDB in, PostgreSQL and the rest still out', async () => {
      const result = await terminal(
        `${MYSQL} 'select concat("MYREACH-",user())'; ${PSQL} "select 'PGREACH-'||current_user"; ${python_connect(outside_socket)}`,
        { allow_unix_sockets: [MARIADB_SOCKET] },
      );
      expect(result.output).toContain('MYREACH-root');
      expect(result.output).not.toContain('PGREACH');
      expect(result.output).not.toContain('UNIX-OK');
    });
  },
);
