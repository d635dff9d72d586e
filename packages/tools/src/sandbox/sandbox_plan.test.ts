import { describe, expect, it } from 'vitest';
import { bwrap_arguments, type SandboxPlan, seatbelt_profile } from './sandbox_plan.js';

const plan: SandboxPlan = {
  work_dir: '/w/proj',
  temp_dir: '/tmp/lich-sandbox-1',
  writable: ['/home/ada/.npm'],
  pinned: ['/w/proj/.git'],
  read_only: ['/w/proj/.lich', '/w/proj/.git/hooks', '/w/proj/.git/config'],
  network: false,
};

describe('bwrap_arguments', () => {
  it('binds the root read-only, then the writable paths, then what stays read-only', () => {
    const args = bwrap_arguments(plan, { user_namespace: true, disable_userns: true });
    expect(args.join(' ')).toBe(
      [
        '--ro-bind / / --dev /dev --tmpfs /dev/shm --proc /proc',
        '--bind-try /home/ada/.npm /home/ada/.npm',
        '--bind /w/proj /w/proj',
        '--bind /tmp/lich-sandbox-1 /tmp/lich-sandbox-1',
        '--bind /w/proj/.git /w/proj/.git',
        '--ro-bind /w/proj/.lich /w/proj/.lich',
        '--ro-bind /w/proj/.git/hooks /w/proj/.git/hooks',
        '--ro-bind /w/proj/.git/config /w/proj/.git/config',
        '--unshare-user --disable-userns --unshare-net --unshare-uts',
        '--unshare-pid --unshare-ipc --die-with-parent --new-session --as-pid-1 --cap-drop ALL',
        '--chdir /w/proj --',
      ].join(' '),
    );
  });

  it('keeps the network for network: true and skips the user namespace a setuid bwrap lacks', () => {
    const args = bwrap_arguments(
      { ...plan, network: true },
      { user_namespace: false, disable_userns: true },
    );
    expect(args).not.toContain('--unshare-net');
    expect(args).not.toContain('--unshare-user');
    expect(args).not.toContain('--disable-userns');
    // capabilities are dropped either way: a root bwrap would otherwise keep them all
    expect(args.join(' ')).toContain('--cap-drop ALL');
  });

  it('masks credential stores and sockets after the binds, then loads the seccomp filter', () => {
    const args = bwrap_arguments(
      {
        ...plan,
        masks: [
          { path: '/home/ada/.ssh', kind: 'dir' },
          { path: '/home/ada/.netrc', kind: 'file' },
        ],
        socket_masks: ['/run/postgresql/.s.PGSQL.5432'],
        seccomp_fd: 3,
        gate: { info_fd: 4, block_fd: 5 },
      },
      { user_namespace: true, disable_userns: true },
    ).join(' ');
    expect(args).toContain(
      [
        '--ro-bind /w/proj/.git/config /w/proj/.git/config',
        '--tmpfs /home/ada/.ssh --remount-ro /home/ada/.ssh',
        '--ro-bind /dev/null /home/ada/.netrc',
        '--ro-bind /dev/null /run/postgresql/.s.PGSQL.5432',
        '--seccomp 3 --info-fd 4 --block-fd 5',
      ].join(' '),
    );
  });
});

describe('seatbelt_profile', () => {
  it('denies by default and allows writes only where bwrap binds read-write', () => {
    expect(seatbelt_profile(plan)).toBe(
      [
        '(version 1)',
        '(deny default)',
        '(allow process-exec)',
        '(allow process-fork)',
        '(allow signal (target same-sandbox))',
        '(allow process-info* (target same-sandbox))',
        '(allow file-read*)',
        '(allow sysctl-read)',
        '(allow mach-lookup)',
        '(allow ipc-posix-shm)',
        '(allow ipc-posix-sem)',
        '(allow pseudo-tty)',
        '(allow file-ioctl)',
        '(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper"))',
        '(allow file-write* (regex #"^/dev/tty") (regex #"^/dev/fd/"))',
        '(allow file-write*',
        '  (require-all',
        '    (require-any (subpath "/w/proj") (subpath "/tmp/lich-sandbox-1") (subpath "/home/ada/.npm"))',
        '    (require-not (require-any (subpath "/w/proj/.lich") (subpath "/w/proj/.git/hooks") (subpath "/w/proj/.git/config") (literal "/w/proj/.git")))',
        '  ))',
        '',
      ].join('\n'),
    );
  });

  it("allows IP network for true, only the proxy's loopback port for a host list", () => {
    expect(seatbelt_profile({ ...plan, network: true })).toMatch(
      /\n\(allow network\* \(remote ip\)\)\n\(allow network\* \(local ip\)\)\n$/,
    );
    expect(seatbelt_profile({ ...plan, network: { port: 50123 } })).toMatch(
      /\n\(allow network-outbound \(remote ip "localhost:50123"\)\)\n$/,
    );
    expect(seatbelt_profile({ ...plan, network: { socket: '/tmp/l/proxy.sock' } })).toMatch(
      /\n\(allow network-outbound \(remote unix-socket \(path-literal "\/tmp\/l\/proxy\.sock"\)\)\)\n$/,
    );
    expect(seatbelt_profile(plan)).not.toMatch(/network/);
  });

  it('denies reading masked paths and allows only the listed unix sockets', () => {
    const profile = seatbelt_profile({
      ...plan,
      masks: [
        { path: '/home/ada/.ssh', kind: 'dir' },
        { path: '/home/ada/.netrc', kind: 'file' },
      ],
      unix_sockets: ['/var/run/docker.sock'],
    });
    expect(profile).toContain(
      '(allow file-read*)\n(deny file-read* (subpath "/home/ada/.ssh"))\n(deny file-read* (literal "/home/ada/.netrc"))\n',
    );
    expect(profile).toMatch(
      /\n\(allow network-outbound \(remote unix-socket \(subpath "\/var\/run\/docker\.sock"\)\)\)\n$/,
    );
  });

  it('quotes paths holding quotes and backslashes', () => {
    const odd = seatbelt_profile({
      ...plan,
      work_dir: '/w/a "b"\\c',
      writable: [],
      pinned: [],
      read_only: [],
    });
    expect(odd).toContain('(subpath "/w/a \\"b\\"\\\\c")');
    expect(odd).not.toContain('require-not');
  });
});
