import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/**
 * The `.gitignore` rules that apply to absolute paths, as git (and ripgrep with
 * `--no-require-git`) applies them: each folder's `.gitignore` speaks about paths below that folder,
 * from the file system root down, a deeper file overriding a shallower one (`!pattern`
 * re-includes); a folder holding `.git/info/exclude` adds those rules below its `.gitignore` in
 * precedence. `.git` folders are always ignored. Reading the folders above a work dir is what makes
 * a work dir inside a repository honour the repository's root `.gitignore`.
 *
 * Contract: never throws; an unreadable `.gitignore` counts as empty. `ignores` assumes the path's
 * parent folders are not ignored themselves (walkers prune an ignored folder and never ask about
 * what is inside it, which is also git's rule: nothing inside an ignored folder comes back). Each
 * folder's files are read synchronously, once, and cached.
 */
export class GitIgnoreFilter {
  readonly #cache = new Map<string, Ignore | null>();

  /** Whether the absolute path `path` is ignored. */
  ignores(path: string, is_dir: boolean): boolean {
    const parts = path.split('/');
    const name = parts[parts.length - 1];
    if (name === '.git' && is_dir) return true;
    let ignored = false;
    let folder = '';
    // parts[0] is '' (the root); each folder from the root down may hold rules about the rest
    for (let depth = 1; depth < parts.length; depth++) {
      const rules = this.#rules(folder === '' ? '/' : folder);
      if (rules !== null) {
        const below = parts.slice(depth).join('/') + (is_dir ? '/' : '');
        try {
          const verdict = rules.test(below);
          if (verdict.ignored) ignored = true;
          else if (verdict.unignored) ignored = false;
        } catch {
          // a name `ignore` refuses to test: not ignored by this level
        }
      }
      folder = `${folder}/${parts[depth]}`;
    }
    return ignored;
  }

  #rules(folder: string): Ignore | null {
    const cached = this.#cache.get(folder);
    if (cached !== undefined) return cached;
    const content = `${read_text(join(folder, '.git', 'info', 'exclude'))}\n${read_text(join(folder, '.gitignore'))}`;
    const rules = content.trim() === '' ? null : ignore().add(content);
    this.#cache.set(folder, rules);
    return rules;
  }
}

function read_text(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
