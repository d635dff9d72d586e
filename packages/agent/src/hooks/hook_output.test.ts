import { describe, expect, it } from 'vitest';
import { read_hook_output } from './hook_output.js';

const ran = (exit_code: number | null, stdout = '', stderr = '') => ({
  exit_code,
  stdout,
  stderr,
  timed_out: false,
});

describe('read_hook_output', () => {
  it('exit 2 blocks with stderr; another non-zero exit blocks nothing', () => {
    expect(read_hook_output('PreToolUse', ran(2, '', 'no rm'))).toEqual({
      decision: 'block',
      reason: 'no rm',
    });
    expect(read_hook_output('PreToolUse', ran(1, '', 'oops')).decision).toBe('error');
  });

  it('reads a PreToolUse permissionDecision of allow or ask as its permission', () => {
    const decided = (decision: string) =>
      JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision },
      });
    expect(read_hook_output('PreToolUse', ran(0, decided('allow')))).toEqual({
      decision: 'none',
      permission: 'allow',
    });
    expect(read_hook_output('PreToolUse', ran(0, decided('ask')))).toEqual({
      decision: 'none',
      permission: 'ask',
    });
    // only PreToolUse decides permissions; an unknown value decides nothing
    expect(read_hook_output('PostToolUse', ran(0, decided('allow')))).toEqual({ decision: 'none' });
    expect(read_hook_output('PreToolUse', ran(0, decided('maybe')))).toEqual({ decision: 'none' });
  });

  it('reads JSON decisions and context on exit 0', () => {
    const deny = JSON.stringify({
      hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'not here' },
    });
    expect(read_hook_output('PreToolUse', ran(0, deny))).toEqual({
      decision: 'block',
      reason: 'not here',
    });
    const block = JSON.stringify({ decision: 'block', reason: 'go on' });
    expect(read_hook_output('Stop', ran(0, block))).toEqual({ decision: 'block', reason: 'go on' });
    const context = JSON.stringify({ hookSpecificOutput: { additionalContext: 'lint it' } });
    expect(read_hook_output('PostToolUse', ran(0, context))).toEqual({
      decision: 'context',
      context: 'lint it',
    });
    const stop = JSON.stringify({ continue: false, stopReason: 'halt' });
    expect(read_hook_output('PostToolUse', ran(0, stop))).toEqual({
      decision: 'block',
      reason: 'halt',
    });
  });

  it('plain stdout is context only for UserPromptSubmit and SessionStart', () => {
    expect(read_hook_output('UserPromptSubmit', ran(0, 'today: fix bugs\n'))).toEqual({
      decision: 'context',
      context: 'today: fix bugs',
    });
    expect(read_hook_output('PostToolUse', ran(0, 'noise')).decision).toBe('none');
  });

  it('takes updatedInput, and maps it back onto the Lich call', async () => {
    const { lich_tool_args } = await import('./hook_tool_input.js');
    const updated = JSON.stringify({
      hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'ls -a' } },
    });
    const verdict = read_hook_output('PreToolUse', ran(0, updated));
    expect(verdict.updated_input).toEqual({ command: 'ls -a' });
    expect(lich_tool_args({ command: 'ls' }, { command: 'ls -a', description: 'x' }, '/w')).toEqual(
      {
        command: 'ls -a',
      },
    );
    expect(
      lich_tool_args(
        { path: 'a.txt', content: 'x' },
        { file_path: '/w/b.txt', path: 'a.txt', content: 'y' },
        '/w',
      ),
    ).toEqual({ path: 'b.txt', content: 'y' });
  });
});
