import { describe, expect, it } from 'vitest';
import { initial_editor } from './editor.js';
import { make_palette } from './palette.js';
import { attachment_lines } from './prompt_lines.js';

const palette = make_palette({ color: false, plain: true });
const FILES = ['shot.png', 'docs/notes.md', 'photo.JPG'];

function lines(text: string): string[] {
  return attachment_lines({ ...initial_editor(), text, cursor: text.length }, FILES, palette, 80);
}

describe('attachment chips under the editor', () => {
  it('shows a picture and a text file the prompt attaches, each as a chip', () => {
    expect(lines('what is wrong in @shot.png, see @docs/notes.md')).toEqual([
      '  [▣ shot.png] [+ docs/notes.md]',
    ]);
    expect(lines('@photo.JPG')).toEqual(['  [▣ photo.JPG]']);
  });

  it('shows nothing for words that name no file of the work dir, or no @ at all', () => {
    expect(lines('mail me@example.com about @missing.png')).toEqual([]);
    expect(lines('plain text')).toEqual([]);
  });
});
