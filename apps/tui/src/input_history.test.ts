import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { make_temp_dir } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { append_history, history_path, read_history } from './input_history.js';

describe('input history', () => {
  it('is kept per work dir, oldest first, and survives a torn line', async () => {
    const temp = await make_temp_dir({ prefix: 'lich-tui-history-' });
    try {
      const one = history_path(`${temp.path}/one`);
      const two = history_path(`${temp.path}/two`);
      expect(one).toBe(`${temp.path}/one/.lich/tui_history.jsonl`);
      expect(await read_history(one)).toEqual([]);
      await append_history(one, 'first');
      await append_history(one, 'a "quoted"\nsecond line');
      await append_history(two, 'elsewhere');
      await appendFile(one, '"torn');
      expect(await read_history(one)).toEqual(['first', 'a "quoted"\nsecond line']);
      expect(await read_history(two)).toEqual(['elsewhere']);
    } finally {
      await temp.cleanup();
    }
  });

  it('keeps the last 500 and rewrites a file grown past twice that', async () => {
    const temp = await make_temp_dir({ prefix: 'lich-tui-history-' });
    try {
      const path = history_path(temp.path);
      await mkdir(dirname(path), { recursive: true });
      const lines = Array.from({ length: 1001 }, (_, index) => `${JSON.stringify(`e${index}`)}\n`);
      await appendFile(path, lines.join(''));
      const kept = await read_history(path);
      expect(kept).toHaveLength(500);
      expect(kept[0]).toBe('e501');
      expect((await readFile(path, 'utf8')).trim().split('\n')).toHaveLength(500);
    } finally {
      await temp.cleanup();
    }
  });
});
