import { closeSync, openSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './context.js';
import { stdin_kind } from './stdin_kind.js';

function io_with(stdin_fd: number | undefined, is_tty?: boolean): CliIo {
  const stdin = Object.assign(new PassThrough(), is_tty === undefined ? {} : { isTTY: is_tty });
  return {
    stdin,
    ...(stdin_fd === undefined ? {} : { stdin_fd }),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: {},
    cwd: process.cwd(),
  };
}

describe('stdin_kind', () => {
  it('calls the null device empty and a file data, from the descriptor alone', async () => {
    const null_fd = openSync('/dev/null', 'r');
    const file_fd = openSync(new URL(import.meta.url), 'r');
    try {
      // the stream says terminal: the descriptor wins
      expect(await stdin_kind(io_with(null_fd, true))).toBe('empty');
      expect(await stdin_kind(io_with(file_fd, true))).toBe('data');
    } finally {
      closeSync(null_fd);
      closeSync(file_fd);
    }
  });

  it('asks the stream when there is no descriptor or fstat refuses it', async () => {
    expect(await stdin_kind(io_with(undefined, true))).toBe('tty');
    expect(await stdin_kind(io_with(undefined))).toBe('data');
    expect(await stdin_kind(io_with(987_654, true))).toBe('tty');
  });
});
