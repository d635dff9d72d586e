/**
 * Globs that filter which files `grep` searches, with ripgrep's `--glob` semantics, so the JS
 * fallback picks exactly the files `rg -g` picks: gitignore-style globs matched against paths
 * relative to the work dir; a glob without `/` matches a name at any depth; `*` and `?` stop at
 * `/`, `**` crosses folders; `{a,b}` and `[...]` work; a trailing `/` matches folders only; a
 * leading `!` excludes. A matching glob overrides `.gitignore` and hidden-file rules; when any
 * glob includes, a file that matches none is left out.
 */

interface CompiledGlob {
  /** True for a glob that includes (ripgrep's whitelist), false for a `!` glob. */
  include: boolean;
  dir_only: boolean;
  regex: RegExp;
}

/** The verdict of an `OverrideGlobs` for one path. */
export type OverrideVerdict = 'include' | 'exclude' | undefined;

/** A set of `--glob` filters. Contract: the constructor throws a `SyntaxError` for a glob that cannot be compiled. */
export class OverrideGlobs {
  readonly #globs: CompiledGlob[];
  readonly has_includes: boolean;

  constructor(globs: readonly string[]) {
    this.#globs = globs.filter((glob) => glob !== '').map(compile);
    this.has_includes = this.#globs.some((glob) => glob.include);
  }

  /** Whether there are no globs at all. */
  get empty(): boolean {
    return this.#globs.length === 0;
  }

  /** The verdict for `relative` (a `/`-separated path under the work dir): the last matching glob decides. */
  match(relative: string, is_dir: boolean): OverrideVerdict {
    if (this.#globs.length === 0) return undefined;
    for (let index = this.#globs.length - 1; index >= 0; index--) {
      const glob = this.#globs[index] as CompiledGlob;
      if (glob.dir_only && !is_dir) continue;
      if (glob.regex.test(relative)) return glob.include ? 'include' : 'exclude';
    }
    return this.has_includes && !is_dir ? 'exclude' : undefined;
  }
}

function compile(source: string): CompiledGlob {
  let glob = source;
  let include = true;
  if (glob.startsWith('!')) {
    include = false;
    glob = glob.slice(1);
  } else if (glob.startsWith('\\!')) {
    glob = glob.slice(1);
  }
  let dir_only = false;
  if (glob.endsWith('/') && glob.length > 1) {
    dir_only = true;
    glob = glob.slice(0, -1);
  }
  if (!glob.includes('/')) glob = `**/${glob}`;
  else if (glob.startsWith('/')) glob = glob.slice(1);
  return { include, dir_only, regex: new RegExp(`^${translate(glob)}$`, 'su') };
}

function escape_char(char: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}

function translate(glob: string): string {
  let out = '';
  let index = 0;
  let braces = 0;
  while (index < glob.length) {
    const char = glob[index] as string;
    if (char === '*' && glob[index + 1] === '*') {
      const at_start = index === 0 || glob[index - 1] === '/';
      const after = glob[index + 2];
      if (at_start && after === '/') {
        out += '(?:.*/)?';
        index += 3;
        continue;
      }
      if (at_start && after === undefined) {
        out += '.*';
        index += 2;
        continue;
      }
      out += '[^/]*';
      index += 2;
      continue;
    }
    if (char === '*') {
      out += '[^/]*';
    } else if (char === '?') {
      out += '[^/]';
    } else if (char === '[') {
      const close = glob.indexOf(']', index + 2);
      if (close === -1) {
        out += '\\[';
      } else {
        let body = glob.slice(index + 1, close);
        const negated = body.startsWith('!') || body.startsWith('^');
        if (negated) body = body.slice(1);
        const escaped = body.replace(/[\\\]^[]/g, (found) => `\\${found}`);
        out += negated ? `[^/${escaped}]` : `[${escaped}]`;
        index = close;
      }
    } else if (char === '{') {
      braces += 1;
      out += '(?:';
    } else if (char === '}' && braces > 0) {
      braces -= 1;
      out += ')';
    } else if (char === ',' && braces > 0) {
      out += '|';
    } else if (char === '\\' && index + 1 < glob.length) {
      index += 1;
      out += escape_char(glob[index] as string);
    } else {
      out += escape_char(char);
    }
    index += 1;
  }
  if (braces > 0) throw new SyntaxError(`unclosed '{' in glob '${glob}'`);
  return out;
}
