/**
 * The input history, kept per work dir in `<work_dir>/.lich/tui_history.jsonl`: one JSON string
 * per line, newest last, the last 500 kept. Reading and writing are best-effort: a history that
 * cannot be read is empty, one that cannot be written is not kept.
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const LIMIT = 500;

/** The history file of a work dir. */
export function history_path(work_dir: string): string {
  return join(work_dir, '.lich', 'tui_history.jsonl');
}

/**
 * The entries of `path`, oldest first, the last 500; empty when it is missing or unreadable. A
 * file that grew past twice the limit is rewritten with what is kept.
 */
export async function read_history(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as unknown;
      if (typeof value === 'string') entries.push(value);
    } catch {
      // a torn line
    }
  }
  const kept = entries.slice(-LIMIT);
  if (entries.length > LIMIT * 2) {
    await writeFile(path, kept.map((entry) => `${JSON.stringify(entry)}\n`).join('')).catch(
      () => undefined,
    );
  }
  return kept;
}

/** Appends `entry`. Never rejects. */
export async function append_history(path: string, entry: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await appendFile(path, `${JSON.stringify(entry)}\n`);
  } catch {
    // history is a convenience
  }
}
