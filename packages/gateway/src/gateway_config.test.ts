import { describe, expect, it } from 'vitest';
import { parse_platform_settings } from './gateway_config.js';

describe('checkpoints in a platform section', () => {
  it('are off unless the section asks for them, with a boolean', () => {
    expect(parse_platform_settings('webhook', {}).bus.checkpoints).toBeUndefined();
    expect(parse_platform_settings('webhook', { checkpoints: true }).bus.checkpoints).toBe(true);
    expect(parse_platform_settings('webhook', { checkpoints: true }).platform).toEqual({});
    expect(() => parse_platform_settings('webhook', { checkpoints: 'yes' })).toThrow(
      /webhook\.checkpoints: true or false/,
    );
  });
});
