import { isAbsolute, resolve } from 'node:path';
import type { ToolCallContent, ToolCallLocation, ToolKind } from './acp_sdk.js';

/** How a tool call is shown in the editor. */
export interface ToolDisplay {
  title: string;
  kind: ToolKind;
  /** The files it touches, absolute (the editor follows along). */
  locations: ToolCallLocation[];
  /** What to show before it ran: the diff of `edit_file` and `write_file`. */
  content: ToolCallContent[];
}

const KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: 'read',
  write_file: 'edit',
  edit_file: 'edit',
  list_dir: 'search',
  glob: 'search',
  grep: 'search',
  terminal: 'execute',
  run_tests: 'execute',
  git_commit: 'execute',
  web_fetch: 'fetch',
  exit_plan_mode: 'think',
};

/** Tools whose calls carry a plan (a plugin's or an MCP server's); see `plan_entries`. */
const PLAN_TOOL = /(^|_)(update_plan|todo_write|todowrite|write_todos)$/i;

function record_of(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : {};
}

function text_of(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** One line, at most `limit` characters. */
function one_line(text: string, limit = 80): string {
  const line = text.replace(/\s*\n\s*/g, ' ').trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

/** `path` as an absolute path (relative paths are relative to the work dir). */
export function absolute_path(work_dir: string, path: string): string {
  return isAbsolute(path) ? path : resolve(work_dir, path);
}

/** True for a tool whose arguments are a plan the model keeps. */
export function is_plan_tool(name: string): boolean {
  return PLAN_TOOL.test(name);
}

/**
 * The title, kind, locations and (for file writes) diff of one tool call, from its name and
 * arguments. Unknown tools (MCP, plugins) are `other`, titled by name.
 *
 * Contract: pure; never throws, whatever `args` holds (it may be the raw text of arguments that
 * did not parse).
 */
export function describe_tool_call(name: string, args: unknown, work_dir: string): ToolDisplay {
  const fields = record_of(args);
  const path = text_of(fields.path);
  const at = path === undefined ? undefined : absolute_path(work_dir, path);
  const kind: ToolKind = KINDS[name] ?? (is_plan_tool(name) ? 'think' : 'other');
  const display: ToolDisplay = { title: name, kind, locations: [], content: [] };
  switch (name) {
    case 'read_file': {
      display.title = `Read ${path ?? 'a file'}`;
      if (at !== undefined) {
        const line = typeof fields.offset === 'number' ? fields.offset : undefined;
        display.locations.push(line === undefined ? { path: at } : { path: at, line });
      }
      break;
    }
    case 'write_file': {
      display.title = `Write ${path ?? 'a file'}`;
      if (at !== undefined) {
        display.locations.push({ path: at });
        const content = typeof fields.content === 'string' ? fields.content : '';
        display.content.push({ type: 'diff', path: at, oldText: null, newText: content });
      }
      break;
    }
    case 'edit_file': {
      display.title = `Edit ${path ?? 'a file'}`;
      if (at !== undefined) {
        display.locations.push({ path: at });
        const old_text = typeof fields.old_text === 'string' ? fields.old_text : '';
        const new_text = typeof fields.new_text === 'string' ? fields.new_text : '';
        display.content.push({ type: 'diff', path: at, oldText: old_text, newText: new_text });
      }
      break;
    }
    case 'list_dir': {
      display.title = `List ${path ?? '.'}`;
      display.locations.push({ path: at ?? work_dir });
      break;
    }
    case 'glob': {
      display.title = `Find ${text_of(fields.pattern) ?? 'files'}`;
      if (at !== undefined) display.locations.push({ path: at });
      break;
    }
    case 'grep': {
      display.title = `Search ${one_line(text_of(fields.pattern) ?? '')}`.trimEnd();
      if (at !== undefined) display.locations.push({ path: at });
      break;
    }
    case 'terminal': {
      display.title = one_line(text_of(fields.command) ?? 'terminal');
      break;
    }
    case 'run_tests': {
      const command = text_of(fields.command);
      display.title = command === undefined ? 'Run the tests' : `Run tests: ${one_line(command)}`;
      break;
    }
    case 'exit_plan_mode': {
      display.title = 'Approve the plan';
      const plan = text_of(fields.plan);
      if (plan !== undefined)
        display.content.push({ type: 'content', content: { type: 'text', text: plan } });
      break;
    }
    case 'task': {
      const what = text_of(fields.description) ?? 'a job';
      const type = text_of(fields.subagent_type);
      display.title = `Subagent${type === undefined ? '' : ` ${type}`}: ${one_line(what)}`;
      break;
    }
    case 'web_fetch': {
      display.title = `Fetch ${one_line(text_of(fields.url) ?? 'a URL')}`;
      break;
    }
    case 'git_commit': {
      const message = text_of(fields.message);
      display.title = message === undefined ? 'Commit' : `Commit: ${one_line(message)}`;
      break;
    }
    default: {
      if (is_plan_tool(name)) display.title = 'Update the plan';
    }
  }
  return display;
}
