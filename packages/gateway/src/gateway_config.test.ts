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

describe('owner_chat in a platform section', () => {
  it('is a bus setting (the owner told of budget stops), a non-empty chat id', () => {
    const parsed = parse_platform_settings('telegram', { owner_chat: '42', token_env: 'T' });
    expect(parsed.bus.owner_chat).toBe('42');
    expect(parsed.platform).toEqual({ token_env: 'T' });
    expect(() => parse_platform_settings('telegram', { owner_chat: '' })).toThrow(
      /telegram\.owner_chat must be a chat id/,
    );
  });
});
