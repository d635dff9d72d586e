import { describe, expect, it } from 'vitest';
import { seed_system_prompt } from './seed_system_prompt.js';
import type { Message } from './types.js';

const user: Message = { role: 'user', content: 'hi' };

describe('seed_system_prompt', () => {
  it('prepends a system message', () => {
    const seed = [user];
    const seeded = seed_system_prompt(seed, 'be kind');
    expect(seeded).toEqual([{ role: 'system', content: 'be kind' }, user]);
    expect(seed).toEqual([user]);
  });

  it('replaces a leading system message whose content differs', () => {
    const old: Message = { role: 'system', content: 'old' };
    const seed = [old, user];
    const seeded = seed_system_prompt(seed, 'new');
    expect(seeded).toEqual([{ role: 'system', content: 'new' }, user]);
    expect(old.content).toBe('old');
  });

  it('keeps a leading system message with the same content, in a new array', () => {
    const same: Message = { role: 'system', content: 'same' };
    const seed = [same, user];
    const seeded = seed_system_prompt(seed, 'same');
    expect(seeded).not.toBe(seed);
    expect(seeded[0]).toBe(same);
    expect(seeded).toHaveLength(2);
  });

  it('leaves the history as it is without a prompt', () => {
    const seed = [user];
    for (const prompt of [undefined, '']) {
      const seeded = seed_system_prompt(seed, prompt);
      expect(seeded).toEqual(seed);
      expect(seeded).not.toBe(seed);
    }
    expect(seed_system_prompt([], 'only')).toEqual([{ role: 'system', content: 'only' }]);
  });
});
