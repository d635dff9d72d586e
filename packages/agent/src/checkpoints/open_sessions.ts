import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * True when session `id` of `session_dir` is held open by a live process (its `<id>.jsonl.lock`
 * names a pid that runs): its checkpoints are not pruned. Sessions kept elsewhere than JSONL files
 * (a database) are never found open here.
 */
export function session_is_open(session_dir: string, id: string): boolean {
  let text: string;
  try {
    text = readFileSync(join(session_dir, `${id}.jsonl.lock`), 'utf8');
  } catch {
    return false;
  }
  const pid = Number.parseInt(text.trim(), 10);
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
