import { describe, expect, it } from 'vitest';
import { AGENT_OPTIONS, integer_option, parse_command_args } from './args.js';
import { color_enabled } from './style.js';
import { UsageError } from './usage_error.js';

describe('parse_command_args', () => {
  it('parses flags and positionals', () => {
    const { values, positionals } = parse_command_args(
      'run',
      ['-C', 'dir', '--no-session', 'fix', 'it'],
      AGENT_OPTIONS,
    );
    expect(values['work-dir']).toBe('dir');
    expect(values['no-session']).toBe(true);
    expect(positionals).toEqual(['fix', 'it']);
  });

  it('turns an unknown option into a UsageError carrying what to suggest', () => {
    try {
      parse_command_args('run', ['--modle', 'x'], AGENT_OPTIONS);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe("unknown option '--modle'");
      expect((error as UsageError).suggest?.candidates).toContain('model');
    }
  });

  it('checks whole numbers', () => {
    expect(integer_option('run', 'max-turns', '12')).toBe(12);
    expect(() => integer_option('run', 'max-turns', '1.5')).toThrow(/positive whole number/);
    expect(() => integer_option('run', 'max-turns', '0')).toThrow(UsageError);
  });
});

describe('color_enabled', () => {
  it('honours NO_COLOR, FORCE_COLOR and TERM=dumb', () => {
    expect(color_enabled({ isTTY: true }, {})).toBe(true);
    expect(color_enabled({ isTTY: false }, {})).toBe(false);
    expect(color_enabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(color_enabled({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(color_enabled({ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
  });
});
