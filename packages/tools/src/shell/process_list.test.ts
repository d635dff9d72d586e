import { describe, expect, it } from 'vitest';
import { collect_tree, is_zombie, type ProcessInfo, parse_stat } from './process_list.js';

/** A `/proc/<pid>/stat` line with `comm` as the command name and the fields that matter. */
function stat_line(pid: number, comm: string, state: string, ppid: number, pgid: number): string {
  const rest = Array.from({ length: 16 }, (_, index) => String(index));
  // field 22 (start time) is the 20th after the command name
  return `${pid} (${comm}) ${state} ${ppid} ${pgid} ${rest.join(' ')} 4242 0 0`;
}

describe('parse_stat', () => {
  it('reads the fields after the command name, spaces and parentheses in it included', () => {
    expect(parse_stat(7, stat_line(7, 'odd) name (x', 'S', 1, 7))).toEqual({
      pid: 7,
      ppid: 1,
      pgid: 7,
      state: 'S',
      start: 4242,
    });
  });

  it('refuses a text that is not a stat line', () => {
    expect(parse_stat(7, '')).toBeUndefined();
    expect(parse_stat(7, '7 (x) S one two')).toBeUndefined();
  });
});

describe('collect_tree', () => {
  it('takes the group, and the descendants of its members wherever their group is', () => {
    const processes: ProcessInfo[] = [
      { pid: 10, ppid: 1, pgid: 10, state: 'S' },
      { pid: 11, ppid: 10, pgid: 11, state: 'S' }, // left the group
      { pid: 12, ppid: 11, pgid: 11, state: 'Z' },
      { pid: 13, ppid: 1, pgid: 10, state: 'S' }, // orphaned, still in the group
      { pid: 20, ppid: 1, pgid: 20, state: 'S' },
    ];
    const pids = collect_tree(10, processes).map((entry) => entry.pid);
    expect(pids.sort()).toEqual([10, 11, 12, 13]);
    expect(processes.filter(is_zombie).map((entry) => entry.pid)).toEqual([12]);
  });
});
