import { describe, expect, it } from 'vitest';
import { split_commands } from './shell_commands.js';
import {
  apply_command,
  expand_words,
  find_runs,
  type ShellState,
  xargs_runs,
} from './shell_expand.js';
import { HOME_MARK, parse_shell, UNKNOWN_MARK } from './shell_words.js';

/** Applies every command of `line` but the last, and returns the last with the state reached. */
function last_command(line: string, cwd?: string) {
  const commands = split_commands(parse_shell(line).tokens);
  const state: ShellState = { cwd, vars: new Map() };
  for (const command of commands.slice(0, -1)) apply_command(command, state);
  return { command: commands[commands.length - 1]!, state };
}

describe('shell_expand', () => {
  it('puts in variables set earlier on the line, and marks the others unknown', () => {
    const { command, state } = last_command('a=/; b=$a/x; export c=~; echo $b $c $d');
    expect(expand_words(command.words, state)).toEqual([['echo', '//x', HOME_MARK, UNKNOWN_MARK]]);
  });

  it('gives each value a for loop may take', () => {
    const { command, state } = last_command('for d in a /; do rm -rf "$d"; done');
    expect(command.words).toEqual(['done']);
    const body = split_commands(parse_shell('rm -rf "$d"').tokens)[0]!;
    expect(expand_words(body.words, state)).toEqual([
      ['rm', '-rf', 'a'],
      ['rm', '-rf', '/'],
    ]);
  });

  it('follows cd and pushd, and forgets the folder when it cannot know it', () => {
    expect(last_command('cd / && ls').state.cwd).toBe('/');
    expect(last_command('cd /usr; cd .. ; ls').state.cwd).toBe('/usr/..');
    expect(last_command('cd; ls').state.cwd).toBe(HOME_MARK);
    expect(last_command('cd src; ls', '/w').state.cwd).toBe('/w/src');
    expect(last_command('cd src; ls').state.cwd).toBeUndefined();
    expect(last_command('cd $x; ls', '/w').state.cwd).toBeUndefined();
    expect(last_command('cd / ; cd -; ls').state.cwd).toBeUndefined();
  });

  it('reads what xargs runs from a literal echo or printf', () => {
    const { command, state } = last_command("printf 'a\\nb\\n' | xargs -I{} rm -r {}/x");
    expect(xargs_runs(command.words, command.input, state)).toEqual([
      ['rm', '-r', 'a/x'],
      ['rm', '-r', 'b/x'],
    ]);
    const appended = last_command('echo -n a b | xargs -0 -n 1 rm');
    expect(xargs_runs(appended.command.words, appended.command.input, appended.state)).toEqual([
      ['rm', 'a', 'b'],
    ]);
    const unknown = last_command('find . | xargs rm -rf');
    expect(xargs_runs(unknown.command.words, unknown.command.input, unknown.state)).toEqual([
      ['rm', '-rf'],
    ]);
  });

  it('reads what find runs on its own starting points, only when nothing filters them', () => {
    expect(find_runs(['find', '/', '-maxdepth', '0', '-exec', 'rm', '-rf', '{}', ';'])).toEqual([
      ['rm', '-rf', '/'],
    ]);
    expect(find_runs(['find', 'a', 'b', '-delete'])).toEqual([['rm', '-r', 'a', 'b']]);
    expect(find_runs(['find', '/', '-name', 'x', '-delete'])).toEqual([]);
    expect(find_runs(['find', '-exec', 'rm', '{}', '+'])).toEqual([['rm', '.']]);
  });
});
