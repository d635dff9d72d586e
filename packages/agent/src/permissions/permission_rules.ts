import { isAbsolute, resolve, sep } from 'node:path';
import { path_inside } from '@lich/tools';
import { command_parts } from './command_parts.js';

/** What a rule does when it matches. */
export type RuleEffect = 'allow' | 'ask' | 'deny';

/** How a tool's calls are judged by the approval modes. */
export type ToolKind = 'read' | 'edit' | 'execute';

/** Tools that only read: allowed in every mode (`skill` reads a skill's instructions). */
export const READ_TOOLS: ReadonlySet<string> = new Set([
  'read_file',
  'list_dir',
  'glob',
  'grep',
  'skill',
  // changes nothing but the session's own task list
  'todo_write',
  // starts a subagent, whose every call goes through this same policy and mode
  'task',
]);
/** Tools that change files: allowed from `auto_edit` on. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file']);
/** Tools whose rule argument is the command they run. */
export const COMMAND_TOOLS: ReadonlySet<string> = new Set(['terminal', 'run_tests']);
/** Tools whose rule argument is `domain:<host>` of the URL they fetch. */
export const URL_TOOLS: ReadonlySet<string> = new Set(['web_fetch']);
/** Tools whose rule argument is the path they work on. */
export const PATH_TOOLS: ReadonlySet<string> = new Set([
  'read_file',
  'write_file',
  'edit_file',
  'list_dir',
  'glob',
  'grep',
]);

/** The kind of a tool: read, edit, or execute (every tool not known to be a read or an edit). */
export function tool_kind(tool: string): ToolKind {
  if (READ_TOOLS.has(tool)) return 'read';
  if (EDIT_TOOLS.has(tool)) return 'edit';
  return 'execute';
}

/** A parsed rule: `tool` or `tool(pattern)`. */
export interface PermissionRule {
  /** The rule as the config wrote it, trimmed: what a decision names as its rule. */
  text: string;
  tool: RegExp;
  /** The argument pattern, absent for a bare tool name. */
  pattern: string | undefined;
}

const RULE = /^([A-Za-z0-9_*?-]+)(?:\((.*)\))?$/s;

function escape_regex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A glob as a regular expression; `\x` is a literal x. `path` mode keeps `*` within one segment. */
function glob_regex(glob: string, mode: 'path' | 'text'): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index] as string;
    if (char === '\\' && index + 1 < glob.length) {
      source += escape_regex(glob[index + 1] as string);
      index += 1;
    } else if (char === '*' && mode === 'path' && glob[index + 1] === '*') {
      index += 1;
      if (glob[index + 1] === '/') {
        index += 1;
        source += '(?:.*/)?';
      } else {
        source += '.*';
      }
    } else if (char === '*') {
      source += mode === 'path' ? '[^/]*' : '.*';
    } else if (char === '?') {
      source += mode === 'path' ? '[^/]' : '.';
    } else {
      source += escape_regex(char);
    }
  }
  // `docs/**` also names the folder itself
  if (mode === 'path' && source.endsWith('/.*')) source = `${source.slice(0, -3)}(?:/.*)?`;
  return new RegExp(`^${source}$`, 's');
}

/**
 * Parses `terminal`, `terminal(git status*)`, `write_file(docs/**)`, `mcp_github_*`. Throws a
 * `TypeError` naming the rule when it is not of that shape.
 */
export function parse_rule(text: string): PermissionRule {
  const match = typeof text === 'string' ? RULE.exec(text.trim()) : null;
  if (match === null) {
    throw new TypeError(
      `'${String(text)}' is not a permission rule: write a tool name, optionally with an argument pattern, as in terminal(git status*) or write_file(docs/**)`,
    );
  }
  const pattern = match[2]?.trim();
  return { text: text.trim(), tool: glob_regex(match[1] as string, 'text'), pattern };
}

/** The argument patterns of each rule, compiled on first use: rules are checked on every call. */
const COMPILED = new WeakMap<PermissionRule, { command?: RegExp; path?: RegExp }>();

function compiled_pattern(rule: PermissionRule, pattern: string, kind: 'command' | 'path'): RegExp {
  let entry = COMPILED.get(rule);
  if (entry === undefined) {
    entry = {};
    COMPILED.set(rule, entry);
  }
  let regex = entry[kind];
  if (regex === undefined) {
    regex =
      kind === 'command'
        ? glob_regex(normalise_command(pattern), 'text')
        : glob_regex(pattern.replace(/^\.\//, ''), 'path');
    entry[kind] = regex;
  }
  return regex;
}

/** Writes `text` so a rule matches it literally (`*`, `?`, `\` and parentheses escaped). */
export function escape_pattern(text: string): string {
  return text.replace(/[*?\\]/g, '\\$&');
}

function normalise_command(command: string): string {
  return command.replace(/\s+/g, ' ').trim();
}

/** The path as rules see it: relative to `work_dir`, with `/`; null when outside it. */
export function rule_path(path: string, work_dir: string): string | null {
  const absolute = isAbsolute(path) ? path : resolve(work_dir, path);
  const inside = path_inside(work_dir, absolute);
  if (inside === null) return null;
  return inside === '' ? '.' : inside.split(sep).join('/');
}

/**
 * `domain:<host>` of a URL as the WHATWG parser reads it (lower case, IPv6 without brackets), or
 * `domain:` when it is no URL, which no domain rule but `domain:*` matches.
 */
export function url_domain(url: unknown): string {
  try {
    const host = new URL(String(url)).hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
    return `domain:${host.toLowerCase()}`;
  } catch {
    return 'domain:';
  }
}

/**
 * The argument rules match for a call: the command, the path, `domain:<host>`, or undefined (bare
 * names only).
 */
export function rule_argument(tool: string, args: unknown, work_dir: string): string | undefined {
  const fields = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  if (URL_TOOLS.has(tool)) return url_domain(fields.url);
  if (COMMAND_TOOLS.has(tool)) {
    return typeof fields.command === 'string' ? normalise_command(fields.command) : '';
  }
  if (PATH_TOOLS.has(tool)) {
    const path = typeof fields.path === 'string' && fields.path !== '' ? fields.path : '.';
    return rule_path(path, work_dir) ?? path;
  }
  return undefined;
}

/**
 * Whether `rule` covers a call of `tool` with `args`.
 *
 * Contract (what the README documents):
 * - a bare name (globs `*` and `?` allowed) covers every call of the tools it names;
 * - `terminal(p)` / `run_tests(p)`: `p` is matched against the command, whitespace collapsed,
 *   `*` standing for any text. An allow rule covers a line only when every simple command of it
 *   (split at `;`, `&&`, `||`, `|`, `&`, newlines) matches and the line has no redirection,
 *   substitution or subshell; a deny or ask rule covers a line when the whole line or any of its
 *   simple commands matches;
 * - `web_fetch(p)`: `p` is matched against `domain:<host>` of the URL (`domain:docs.python.org`,
 *   `domain:*.python.org`), `*` standing for any text;
 * - path tools (`read_file`, `write_file`, `edit_file`, `list_dir`, `glob`, `grep`): `p` is a
 *   glob over the path relative to the work dir (`*` within a folder, `**` across folders,
 *   `docs/**` covering `docs` too); an allow rule never covers a path outside the work dir;
 * - any other tool: a rule with a pattern never matches.
 * Never throws.
 */
export function rule_matches(
  rule: PermissionRule,
  effect: RuleEffect,
  tool: string,
  args: unknown,
  work_dir: string,
): boolean {
  if (!rule.tool.test(tool)) return false;
  if (rule.pattern === undefined) return true;
  const argument = rule_argument(tool, args, work_dir);
  if (argument === undefined) return false;
  if (URL_TOOLS.has(tool)) return compiled_pattern(rule, rule.pattern, 'command').test(argument);
  if (COMMAND_TOOLS.has(tool)) {
    const pattern = compiled_pattern(rule, rule.pattern, 'command');
    const { parts, opaque } = command_parts(argument);
    if (effect === 'allow') {
      return !opaque && parts.length > 0 && parts.every((part) => pattern.test(part));
    }
    return pattern.test(argument) || parts.some((part) => pattern.test(part));
  }
  if (effect === 'allow' && rule_path(argument, work_dir) === null) return false;
  const pattern = compiled_pattern(rule, rule.pattern, 'path');
  return pattern.test(argument);
}
