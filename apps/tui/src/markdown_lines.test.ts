import { describe, expect, it } from 'vitest';
import { render_markdown } from './markdown_lines.js';
import { make_palette } from './palette.js';

const plain = make_palette({ color: false, plain: true });
const colour = make_palette({ color: true });
const render = (text: string, width = 60) => render_markdown(text, { width, palette: plain });

describe('render_markdown', () => {
  it('renders paragraphs separated by one blank line, wrapped to the width', () => {
    const lines = render('one two three four five six seven eight\n\nnext', 20);
    expect(lines).toEqual(['one two three four', 'five six seven eight', '', 'next']);
  });

  it('renders headings, emphasis, inline code and links', () => {
    expect(render('# Title **b**')).toEqual(['Title b']);
    expect(render('a *b* `c` [d](http://e)')).toEqual(['a b `c` d (http://e)']);
    expect(render('<http://e>')).toEqual(['http://e']);
  });

  it('renders nested, ordered and task lists', () => {
    expect(render('- a\n- [x] b\n  1. c\n  2. d\n\n3. x\n4. y')).toEqual([
      '• a',
      '• [x] b',
      '  1. c',
      '  2. d',
      '',
      '3. x',
      '4. y',
    ]);
  });

  it('renders code blocks indented, whole, with their blank lines', () => {
    expect(render('```ts\nconst a = 1;\n\nreturn a;\n```')).toEqual([
      '  const a = 1;',
      '  ',
      '  return a;',
    ]);
  });

  it('renders an unclosed fence (an answer still being written) as code', () => {
    expect(render('```\nstill', 40)).toEqual(['  still']);
  });

  it('renders tables as a grid, or as rows of fields when too wide', () => {
    expect(render('| a | bb |\n|---|--:|\n| 1 | 2 |')).toEqual(['a │ bb', '──┼───', '1 │  2']);
    const wide = `| name | description |\n|---|---|\n| x | ${'word '.repeat(12)}|`;
    const lines = render(wide, 30);
    expect(lines[0]).toBe('name: x');
    expect(lines.slice(1).join(' ')).toContain('description: word word');
    expect(lines.every((line) => line.length <= 30)).toBe(true);
  });

  it('renders block quotes and rules', () => {
    expect(render('> quoted\n\n---')).toEqual(['│ quoted', '', '─'.repeat(40)]);
  });

  it('decodes entities the lexer keeps', () => {
    expect(render('a &amp; b < c')).toEqual(['a & b < c']);
  });

  it('colours code and keeps text readable without colour', () => {
    const [line] = render_markdown('```js\nconst a = "x"; // note\n```', {
      width: 60,
      palette: colour,
    });
    expect(line).toContain('\u001B[35mconst\u001B[39m');
    expect(line).toContain('\u001B[32m"x"\u001B[39m');
    expect(line).toContain('\u001B[90m// note\u001B[39m');
    const no_color = make_palette({ color: false });
    expect(render_markdown('`x` and **b**', { width: 60, palette: no_color })).toEqual([
      '`x` and \u001B[1mb\u001B[22m',
    ]);
  });

  it('keeps every line within the width, however narrow', () => {
    const text = `${'averyveryverylongwordwithoutanybreaks'.repeat(3)}\n\n- ${'item '.repeat(30)}`;
    for (const line of render(text, 20)) expect(line.length).toBeLessThanOrEqual(20);
  });
});
