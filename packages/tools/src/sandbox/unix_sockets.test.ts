import { describe, expect, it } from 'vitest';
import { bound_unix_socket_paths } from './unix_sockets.js';

describe('bound_unix_socket_paths', () => {
  it('reads the paths of /proc/net/unix, skipping abstract and unnamed sockets', () => {
    const listing = [
      'Num       RefCount Protocol Flags    Type St Inode Path',
      '000000000dd03ee4: 00000002 00000000 00010000 0001 01  4715 /var/run/postgresql/.s.PGSQL.5432',
      '000000008ae31002: 00000003 00000000 00000000 0001 03 144221',
      '00000000b22a1058: 00000002 00000000 00010000 0001 01  8934 /run/mysqld/mysqld.sock',
      '00000000b22a1059: 00000002 00000000 00010000 0001 01  8935 @/tmp/.X11-unix/X0',
      '00000000b22a1060: 00000002 00000000 00010000 0001 01  8936 /tmp/a dir/with space.sock',
      '00000000b22a1061: 00000002 00000000 00010000 0001 01  8937 /run/mysqld/mysqld.sock',
    ].join('\n');
    expect(bound_unix_socket_paths(listing)).toEqual([
      '/var/run/postgresql/.s.PGSQL.5432',
      '/run/mysqld/mysqld.sock',
      '/tmp/a dir/with space.sock',
    ]);
  });
});
