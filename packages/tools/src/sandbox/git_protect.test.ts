import { describe, expect, it } from 'vitest';
import { hooks_path_of } from './git_protect.js';

describe('hooks_path_of', () => {
  it('reads core.hooksPath as git does: any case, quotes, comments, the last one', () => {
    expect(hooks_path_of('[core]\n\thooksPath = .husky\n')).toBe('.husky');
    expect(hooks_path_of('[CORE]\nHOOKSPATH=".husky/_" # husky 9\n')).toBe('.husky/_');
    expect(hooks_path_of('[core]\nhooksPath = a\n[user]\nname = x\n[core]\nhookspath = b\n')).toBe(
      'b',
    );
    expect(hooks_path_of('[user]\nhooksPath = nope\n')).toBeUndefined();
    expect(hooks_path_of('[core] hooksPath = inline\n')).toBe('inline');
  });
});
