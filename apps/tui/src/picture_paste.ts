/**
 * A picture dropped on the terminal, or its path pasted: terminals deliver a dropped file as its
 * path (quoted, with escaped spaces, or as a `file://` URL). Such a paste becomes an `@path`
 * mention, so the picture is attached like `@shot.png` typed by hand.
 */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const PICTURE = /\.(png|jpe?g|gif|webp)$/i;

/** The path a pasted text names, unwrapped: quotes, `\ ` escapes, `file://`, a leading `~/`. */
function pasted_path(text: string): string | undefined {
  let path = text.trim();
  if (path === '' || path.includes('\n')) return undefined;
  const quoted = /^(['"])(.*)\1$/.exec(path);
  if (quoted) path = quoted[2] as string;
  else path = path.replace(/\\(.)/g, '$1');
  if (path.startsWith('file://')) {
    try {
      path = fileURLToPath(path);
    } catch {
      return undefined;
    }
  }
  if (path.startsWith('~/')) path = `${homedir()}${path.slice(1)}`;
  return path;
}

/**
 * `@path` for a paste that is the path of an existing picture file (PNG, JPEG, GIF, WebP):
 * relative to `work_dir` when inside it, else absolute; spaces escaped as `\ `. `undefined` for
 * any other paste, which is then inserted as it is. Reads the file system (one stat).
 */
export function picture_paste(text: string, work_dir: string): string | undefined {
  const path = pasted_path(text);
  if (path === undefined || !PICTURE.test(path)) return undefined;
  const full = resolve(work_dir, path);
  try {
    if (!statSync(full).isFile()) return undefined;
  } catch {
    return undefined;
  }
  const inside = relative(work_dir, full);
  const shown =
    inside !== '' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside) ? inside : full;
  return `@${shown.replaceAll(' ', '\\ ')} `;
}
