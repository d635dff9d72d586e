import type { ToolExecutor, ToolRegistry } from '@lich/tools';
import { type AttachedMentions, attach_file_mentions } from './file_mentions.js';

/** A file name a mention may name a picture by. */
const PICTURE_NAME = /\.(png|jpe?g|gif|webp)$/i;

/** The tools a prompt's mentions are read through, and the folder they are relative to. */
export interface MentionTools {
  registry: ToolRegistry;
  executor: ToolExecutor;
  work_dir: string;
}

/**
 * Attaches the files `text` names as `@path` (C31), read through the agent's `read_file` (its
 * guard and masked paths); nothing when `read_file` is not among the registered tools. A picture
 * named by its full path is read as the person's own (as `--image` is). Never rejects.
 */
export async function attach_agent_mentions(
  text: string,
  tools: MentionTools,
): Promise<AttachedMentions> {
  if (!text.includes('@') || !tools.registry.has('read_file')) {
    return { text, attached: [], images: [], skipped: [] };
  }
  const { existsSync, statSync } = await import('node:fs');
  const { isAbsolute, resolve } = await import('node:path');
  const root = tools.work_dir;
  return attach_file_mentions(
    text,
    (path) => {
      const full = resolve(root, path);
      return existsSync(full) && !statSync(full).isDirectory();
    },
    async (path) => {
      // a picture the person named by its full path (dropped or pasted into the terminal) is
      // theirs to send, as `--image` is; anything else goes through read_file and its guard
      if (isAbsolute(path) && PICTURE_NAME.test(path)) {
        const { read_image_file } = await import('./images/read_image_file.js');
        const picture = await read_image_file(path, root);
        return { ok: true, output: '', images: [picture], duration_ms: 0 };
      }
      return tools.executor.execute('read_file', { path }, { work_dir: root });
    },
  );
}
