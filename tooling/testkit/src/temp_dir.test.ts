import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { make_temp_dir } from './temp_dir.js';

describe('make_temp_dir', () => {
  it('creates a folder with files and removes it', async () => {
    const dir = await make_temp_dir({ files: { 'a.txt': 'A', 'deep/b/c.ts': 'C' } });
    expect(readFileSync(`${dir.path}/deep/b/c.ts`, 'utf8')).toBe('C');
    await dir.cleanup();
    await dir.cleanup();
    expect(existsSync(dir.path)).toBe(false);
  });
});
