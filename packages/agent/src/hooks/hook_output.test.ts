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
});
