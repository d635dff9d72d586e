import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { work_dir_of } from './work_dir_of.js';

describe('work_dir_of', () => {
  it('takes an absolute path to a folder', () => {
    expect(work_dir_of(import.meta.dirname)).toBe(import.meta.dirname);
  });

  it('refuses a relative path, a missing folder and a file as invalid params', () => {
    expect(() => work_dir_of('relative')).toThrow(/absolute path/);
    expect(() => work_dir_of(join(import.meta.dirname, 'no-such-folder'))).toThrow(
      /does not exist/,
    );
    expect(() => work_dir_of(import.meta.filename)).toThrow(/is not a folder/);
  });
});
