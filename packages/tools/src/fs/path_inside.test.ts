import { describe, expect, it } from 'vitest';
import { is_inside, path_inside } from './path_inside.js';

describe('path_inside', () => {
  it('gives the path inside the folder, "" for the folder itself', () => {
    expect(path_inside('/w', '/w/src/a.ts')).toBe('src/a.ts');
    expect(path_inside('/w/', '/w')).toBe('');
    expect(path_inside('/w', '/w/src/../b.ts')).toBe('b.ts');
  });

  it('says null for a path outside, however it gets there', () => {
    expect(path_inside('/w', '/')).toBeNull();
    expect(path_inside('/w', '/w/..')).toBeNull();
    expect(path_inside('/w', '/w/../x')).toBeNull();
    // the sibling-prefix trap
    expect(path_inside('/w', '/w-evil/x')).toBeNull();
  });

  it('keeps a name that only starts with dots inside', () => {
    expect(path_inside('/w', '/w/..env')).toBe('..env');
    expect(path_inside('/w', '/w/.../x')).toBe('.../x');
    expect(is_inside('..sessions/a.jsonl')).toBe(true);
    expect(is_inside('..')).toBe(false);
    expect(is_inside('../x')).toBe(false);
  });
});
