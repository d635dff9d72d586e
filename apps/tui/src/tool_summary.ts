/**
 * One line per tool call: what it was asked (`terminal: npm test`, `read_file src/a.ts`) and what
 * came of it (`+3 −1`, `120 lines`, the error's first line).
 */
import { first_line } from './text_fit.js';

function field(args: unknown, name: string): string | undefined {
  if (args === null || typeof args !== 'object') return undefined;
  const value = (args as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** What the call was asked to do, in a few words (its name and main argument). */
export function tool_subject(name: string, args: unknown): string {
  // arguments that did not parse reach here as their raw text: no made-up path
  if (typeof args === 'string') return `${name} (arguments are not JSON)`;
  const path = field(args, 'path');
  switch (name) {
    case 'terminal':
      return `terminal: ${first_line(field(args, 'command') ?? '')}`;
    case 'run_tests':
      return `run_tests${field(args, 'command') ? `: ${first_line(field(args, 'command')!)}` : ''}`;
    case 'web_fetch':
      return `web_fetch ${first_line(field(args, 'url') ?? '')}`;
    case 'glob':
      return `glob ${field(args, 'pattern') ?? ''}${path ? ` in ${path}` : ''}`;
    case 'grep':
      return `grep ${JSON.stringify(field(args, 'pattern') ?? '')}${path ? ` in ${path}` : ''}`;
    case 'task': {
      const type = field(args, 'subagent_type');
      return `task${type ? ` (${type})` : ''}: ${first_line(field(args, 'description') ?? '')}`;
    }
    case 'read_file':
    case 'write_file':
    case 'edit_file':
    case 'list_dir':
      return `${name} ${path ?? '.'}`;
  }
  if (args === null || typeof args !== 'object' || Object.keys(args).length === 0) return name;
  const text = Object.entries(args as Record<string, unknown>)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${name} ${first_line(text)}`;
}

/** Lines added and removed in a unified diff. */
export function diff_counts(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) added += 1;
    else if (line.startsWith('-') && !line.startsWith('---')) removed += 1;
  }
  return { added, removed };
}

/** What came of a finished call, in a few words; empty when there is nothing worth saying. */
export function tool_outcome(name: string, ok: boolean, output: string, error?: string): string {
  if (!ok) return first_line(error ?? output) || 'failed';
  switch (name) {
    case 'edit_file': {
      const { added, removed } = diff_counts(output);
      return `+${added} −${removed}`;
    }
    case 'write_file':
      return first_line(output);
    case 'task':
      // the child's block under the call says how it went
      return '';
    case 'terminal':
    case 'run_tests': {
      // the output ends with how the command ended: `[exit code 0]`
      const lines = output.replace(/\n+$/, '').split('\n');
      const ending = /^\[(.*)\]$/.exec(lines.at(-1) ?? '')?.[1];
      const count = ending === undefined ? lines.length : lines.length - 1;
      const shown = `${count} line${count === 1 ? '' : 's'}`;
      return ending === undefined ? shown : `${ending}, ${shown}`;
    }
    default: {
      const lines = output === '' ? 0 : output.split('\n').length;
      return `${lines} line${lines === 1 ? '' : 's'}`;
    }
  }
}
