import { describe, expect, it } from 'vitest';
import { terminal_reflows } from './terminal_reflows.js';

describe('terminal_reflows', () => {
  it('knows the terminals that re-wrap their lines', () => {
    expect(terminal_reflows({ TMUX: '/tmp/tmux-0/default,1,0', TERM: 'tmux-256color' })).toBe(true);
    expect(terminal_reflows({ TERM_PROGRAM: 'iTerm.app' })).toBe(true);
    expect(terminal_reflows({ VTE_VERSION: '7600', TERM: 'xterm-256color' })).toBe(true);
    expect(terminal_reflows({ TERM: 'xterm-kitty' })).toBe(true);
    expect(terminal_reflows({ WT_SESSION: 'abc' })).toBe(true);
  });

  it('treats the others as cutting their lines', () => {
    expect(terminal_reflows({ TERM: 'xterm-256color' })).toBe(false);
    expect(terminal_reflows({ TERM: 'linux' })).toBe(false);
    expect(terminal_reflows({})).toBe(false);
    // screen inside tmux cuts its lines
    expect(terminal_reflows({ TMUX: 'x', STY: '1234.pts-0.host' })).toBe(false);
  });
});
