/**
 * Gates for tests that need the real thing: bubblewrap that can start, the machine's PostgreSQL
 * and MariaDB through their unix sockets. Where the thing is missing such tests are skipped and
 * the skip names why; where CI says the thing is required (`LICH_REQUIRE_SANDBOX=1`,
 * `LICH_REQUIRE_SERVICES=1`), a missing thing is a failing test instead, never a quiet skip.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';

/** Whether a test's precondition holds, and if not, why. */
export interface Gate {
  ok: boolean;
  /** What was needed, for the test names: `bubblewrap`, `PostgreSQL at /var/run/postgresql`. */
  what: string;
  /** Why it is not there (empty when `ok`). */
  reason: string;
  /** True when the environment says the thing must be there (CI). */
  required: boolean;
}

/** PostgreSQL's socket folder and MariaDB's socket, as Debian's packages place them. */
export const POSTGRES_SOCKET_DIR = '/var/run/postgresql';
export const MARIADB_SOCKET = '/run/mysqld/mysqld.sock';

function run(file: string, args: string[]): { ok: boolean; text: string } {
  const result = spawnSync(file, args, { encoding: 'utf8', timeout: 10_000 });
  if (result.error) return { ok: false, text: result.error.message };
  return { ok: result.status === 0, text: `${result.stdout}${result.stderr}`.trim() };
}

let sandbox_gate_value: Gate | undefined;

/** bubblewrap on PATH and able to start a sandbox here (with a user namespace, or without). */
export function sandbox_gate(): Gate {
  if (sandbox_gate_value !== undefined) return sandbox_gate_value;
  const required = process.env.LICH_REQUIRE_SANDBOX === '1';
  const what = 'bubblewrap';
  if (process.platform !== 'linux') {
    sandbox_gate_value = {
      ok: false,
      what,
      reason: `no bubblewrap on ${process.platform}`,
      required,
    };
    return sandbox_gate_value;
  }
  const base = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-net'];
  const tried = [
    run('bwrap', ['--unshare-user', ...base, '--unshare-pid', '--', 'true']),
    run('bwrap', [...base, '--unshare-pid', '--', 'true']),
  ];
  const started = tried.some((attempt) => attempt.ok);
  sandbox_gate_value = {
    ok: started,
    what,
    reason: started ? '' : `bwrap cannot start here: ${tried.at(-1)?.text || 'not installed'}`,
    required,
  };
  return sandbox_gate_value;
}

let netns_gate_value: Gate | undefined;

/**
 * A network namespace with nothing but its own loopback (`unshare -n`, as root on Linux): what the
 * tests that must never send a packet off the machine run in. Required where the sandbox is.
 */
export function netns_gate(): Gate {
  if (netns_gate_value !== undefined) return netns_gate_value;
  const required = process.env.LICH_REQUIRE_SANDBOX === '1';
  const what = 'a network namespace (unshare -n)';
  if (process.platform !== 'linux') {
    netns_gate_value = { ok: false, what, reason: `none on ${process.platform}`, required };
    return netns_gate_value;
  }
  const tried = run('unshare', ['-n', 'true']);
  netns_gate_value = {
    ok: tried.ok,
    what,
    reason: tried.ok ? '' : `unshare -n cannot start here (root needed): ${tried.text}`,
    required,
  };
  return netns_gate_value;
}

const service_gates = new Map<string, Gate>();

/**
 * The machine's PostgreSQL on its unix socket (trust auth for `postgres`), or MariaDB's (root with
 * an empty password), reachable from this process with their command-line clients.
 */
export function service_gate(service: 'postgresql' | 'mariadb'): Gate {
  const known = service_gates.get(service);
  if (known !== undefined) return known;
  const required = process.env.LICH_REQUIRE_SERVICES === '1';
  let gate: Gate;
  if (service === 'postgresql') {
    const what = `PostgreSQL at ${POSTGRES_SOCKET_DIR}`;
    const socket = `${POSTGRES_SOCKET_DIR}/.s.PGSQL.5432`;
    const tried = existsSync(socket)
      ? run('psql', [
          '-h',
          POSTGRES_SOCKET_DIR,
          '-U',
          'postgres',
          '-d',
          'postgres',
          '-Atc',
          'select 1',
        ])
      : { ok: false, text: `no socket ${socket}` };
    gate = { ok: tried.ok, what, reason: tried.ok ? '' : tried.text, required };
  } else {
    const what = `MariaDB at ${MARIADB_SOCKET}`;
    const tried = existsSync(MARIADB_SOCKET)
      ? run('mysql', ['-uroot', '-S', MARIADB_SOCKET, '-N', '-e', 'select 1'])
      : { ok: false, text: `no socket ${MARIADB_SOCKET}` };
    gate = { ok: tried.ok, what, reason: tried.ok ? '' : tried.text, required };
  }
  service_gates.set(service, gate);
  return gate;
}

/**
 * `describe(title, body)` when every gate holds. Otherwise: where a missing gate is required, one
 * failing test naming what is missing; else the suite skipped, its title saying why.
 */
export function describe_gated(gates: readonly Gate[], title: string, body: () => void): void {
  const missing = gates.filter((gate) => !gate.ok);
  if (missing.length === 0) {
    describe(title, body);
    return;
  }
  const why = missing.map((gate) => `${gate.what}: ${gate.reason}`).join('; ');
  if (missing.some((gate) => gate.required)) {
    describe(title, () => {
      it(`needs ${missing.map((gate) => gate.what).join(' and ')}`, () => {
        throw new Error(`required here, and missing: ${why}`);
      });
    });
    return;
  }
  // said once per suite where any reporter shows it, not only in a verbose run's titles
  process.stderr.write(`skipped: ${title}: ${why}\n`);
  describe.skip(`${title} (skipped: ${why})`, body);
}
