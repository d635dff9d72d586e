import { chmod, chown, mkdir, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { make_temp_dir } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import {
  read_token_file,
  remove_token_file,
  token_file_path,
  write_token_file,
} from './token_file.js';

describe('token file', () => {
  it('lives in $XDG_RUNTIME_DIR/lich, else the state dir', () => {
    expect(token_file_path({ XDG_RUNTIME_DIR: '/run/user/1000' })).toBe(
      '/run/user/1000/lich/serve.json',
    );
    expect(token_file_path({ XDG_STATE_HOME: '/s' })).toBe('/s/lich/serve.json');
    expect(token_file_path({ HOME: '/h' })).toBe('/h/.local/state/lich/serve.json');
  });

  it('is written 0600 in a 0700 folder, read back, and removed only by its own pid', async () => {
    const dir = await make_temp_dir({ prefix: 'lich-serve-' });
    try {
      const path = token_file_path({ XDG_RUNTIME_DIR: dir.path });
      const old_mask = process.umask(0o022);
      try {
        await write_token_file(path, { url: 'ws://127.0.0.1:1/rpc', token: 't', pid: 42 });
        await write_token_file(path, { url: 'ws://127.0.0.1:2/rpc', token: 'u', pid: 43 });
      } finally {
        process.umask(old_mask);
      }
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir.path, 'lich'))).mode & 0o777).toBe(0o700);
      expect(await read_token_file(path)).toEqual({
        url: 'ws://127.0.0.1:2/rpc',
        token: 'u',
        pid: 43,
      });
      await remove_token_file(path, 42);
      expect(await read_token_file(path)).not.toBeNull();
      await remove_token_file(path, 43);
      expect(await read_token_file(path)).toBeNull();
    } finally {
      await dir.cleanup();
    }
  });

  it("tightens a token folder others may write to, and refuses a link or another user's", async () => {
    const dir = await make_temp_dir({ prefix: 'lich-serve-' });
    try {
      const folder = join(dir.path, 'lich');
      await mkdir(folder, { mode: 0o777 });
      await chmod(folder, 0o777);
      const path = join(folder, 'serve.json');
      await write_token_file(path, { url: 'ws://127.0.0.1:1/rpc', token: 't', pid: 1 });
      expect((await stat(folder)).mode & 0o777).toBe(0o700);

      const elsewhere = join(dir.path, 'elsewhere');
      await mkdir(elsewhere);
      await symlink(elsewhere, join(dir.path, 'linked'));
      await expect(
        write_token_file(join(dir.path, 'linked', 'serve.json'), { url: 'u', token: 't', pid: 1 }),
      ).rejects.toThrow(/not a plain folder/);
      if (process.getuid?.() === 0) {
        const theirs = join(dir.path, 'theirs');
        await mkdir(theirs, { mode: 0o777 });
        await chown(theirs, 65534, 65534);
        await expect(
          write_token_file(join(theirs, 'serve.json'), { url: 'u', token: 't', pid: 1 }),
        ).rejects.toThrow(/belongs to another user/);
      }
    } finally {
      await dir.cleanup();
    }
  });
});
