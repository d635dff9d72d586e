/**
 * Markdown to terminal lines: headings, paragraphs, emphasis, inline code, links, lists (nested,
 * ordered, tasks), block quotes, tables, rules and highlighted code blocks, wrapped to a width.
 * Parsing is `marked`'s lexer; the rendering to styled lines is Lich's. Each finished block of an
 * answer goes through here once; only the live tail is rendered again as it grows.
 */
import { Lexer, type Token, type Tokens } from 'marked';
import string_width from 'string-width';
import wrap_ansi from 'wrap-ansi';
import { highlight_code } from './highlight.js';
import type { Palette } from './palette.js';

/** How to render. */
export interface MarkdownOptions {
  /** Columns available; lines are wrapped to it (at least 20). */
  width: number;
  palette: Palette;
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&#x27;': "'",
};

function decode(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|#39|#x27);/g, (entity) => ENTITIES[entity] ?? entity);
}

/** Wraps styled text to `width` columns (words kept whole unless longer than a line). */
export function wrap_lines(text: string, width: number, keep_spaces = false): string[] {
  return wrap_ansi(text, Math.max(1, width), { hard: true, trim: !keep_spaces }).split('\n');
}

function inline(tokens: readonly Token[] | undefined, palette: Palette): string {
  if (tokens === undefined) return '';
  let out = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'strong':
        out += palette.bold(inline(token.tokens, palette));
        break;
      case 'em':
        out += palette.italic(inline(token.tokens, palette));
        break;
      case 'del':
        out += palette.strike(inline(token.tokens, palette));
        break;
      case 'codespan': {
        const code = decode((token as Tokens.Codespan).text);
        out += palette.color ? palette.cyan(code) : `\`${code}\``;
        break;
      }
      case 'link': {
        const link = token as Tokens.Link;
        const label = inline(link.tokens, palette);
        const plain = link.text;
        out +=
          plain === link.href || `mailto:${plain}` === link.href
            ? palette.underline(label)
            : `${palette.underline(label)} ${palette.dim(`(${link.href})`)}`;
        break;
      }
      case 'image':
        out += palette.dim(
          `[image: ${(token as Tokens.Image).text || (token as Tokens.Image).href}]`,
        );
        break;
      case 'br':
        out += '\n';
        break;
      case 'checkbox':
        break;
      case 'text': {
        const text = token as Tokens.Text;
        out += text.tokens ? inline(text.tokens, palette) : decode(text.text);
        break;
      }
      default:
        out += decode('text' in token && typeof token.text === 'string' ? token.text : token.raw);
    }
  }
  return out;
}

function render_table(table: Tokens.Table, options: MarkdownOptions): string[] {
  const { palette, width } = options;
  const header = table.header.map((cell) => inline(cell.tokens, palette));
  const rows = table.rows.map((row) => row.map((cell) => inline(cell.tokens, palette)));
  const widths = header.map((cell, column) =>
    Math.max(string_width(cell), ...rows.map((row) => string_width(row[column] ?? ''))),
  );
  const total = widths.reduce((sum, column) => sum + column, 0) + 3 * (widths.length - 1);
  if (total > width) {
    // Too wide to draw as a grid: each row as `header: value` lines.
    const lines: string[] = [];
    rows.forEach((row, index) => {
      if (index > 0) lines.push('');
      row.forEach((cell, column) => {
        lines.push(...wrap_lines(`${palette.bold(header[column] ?? '')}: ${cell}`, width));
      });
    });
    return lines;
  }
  const pad = (cell: string, column: number) => {
    const gap = (widths[column] ?? 0) - string_width(cell);
    const align = table.align[column];
    if (align === 'right') return ' '.repeat(gap) + cell;
    if (align === 'center') {
      const left = Math.floor(gap / 2);
      return ' '.repeat(left) + cell + ' '.repeat(gap - left);
    }
    return cell + ' '.repeat(gap);
  };
  const line = (cells: string[]) => cells.map(pad).join(palette.dim(' │ ')).trimEnd();
  return [
    line(header.map((cell) => palette.bold(cell))),
    palette.dim(widths.map((column) => '─'.repeat(column)).join('─┼─')),
    ...rows.map((row) => line(row)),
  ];
}

function render_list(list: Tokens.List, options: MarkdownOptions): string[] {
  const lines: string[] = [];
  const start = typeof list.start === 'number' ? list.start : 1;
  const markers = list.items.map((_, index) => (list.ordered ? `${start + index}. ` : '• '));
  const indent = Math.max(...markers.map((marker) => string_width(marker)));
  list.items.forEach((item, index) => {
    if (index > 0 && list.loose) lines.push('');
    const body = render_blocks(item.tokens, { ...options, width: options.width - indent }, false);
    if (item.task) body[0] = `${item.checked ? '[x]' : '[ ]'} ${body[0] ?? ''}`;
    const marker = markers[index] ?? '';
    body.forEach((text, row) => {
      const prefix =
        row === 0 ? options.palette.dim(marker) + ' '.repeat(indent - string_width(marker)) : '';
      lines.push((row === 0 ? prefix : ' '.repeat(indent)) + text);
    });
  });
  return lines;
}

function render_block(token: Token, options: MarkdownOptions): string[] | null {
  const { palette, width } = options;
  switch (token.type) {
    case 'space':
    case 'def':
    case 'checkbox':
      return null;
    case 'heading': {
      const heading = token as Tokens.Heading;
      const text = inline(heading.tokens, palette);
      const styled =
        heading.depth === 1 ? palette.underline(palette.bold(text)) : palette.bold(text);
      return wrap_lines(palette.color ? palette.magenta(styled) : styled, width);
    }
    case 'paragraph':
      return wrap_lines(inline((token as Tokens.Paragraph).tokens, palette), width);
    case 'text': {
      const text = token as Tokens.Text;
      return wrap_lines(text.tokens ? inline(text.tokens, palette) : decode(text.text), width);
    }
    case 'code': {
      const code = token as Tokens.Code;
      const language = (code.lang ?? '').split(/\s/)[0] ?? '';
      const lines = highlight_code(code.text, language, palette);
      return lines.flatMap((line) => wrap_lines(line, width - 2, true).map((part) => `  ${part}`));
    }
    case 'blockquote': {
      const quote = token as Tokens.Blockquote;
      const inner = render_blocks(quote.tokens, { ...options, width: width - 2 }, true);
      return inner.map((line) => `${palette.dim('│')} ${palette.italic(line)}`);
    }
    case 'list':
      return render_list(token as Tokens.List, options);
    case 'table':
      return render_table(token as Tokens.Table, options);
    case 'hr':
      return [palette.dim('─'.repeat(Math.min(width, 40)))];
    case 'html':
      return wrap_lines((token as Tokens.HTML).text.replace(/\n$/, ''), width);
    default:
      return wrap_lines(decode(token.raw.replace(/\n+$/, '')), width);
  }
}

function render_blocks(tokens: readonly Token[], options: MarkdownOptions, spaced: boolean) {
  const lines: string[] = [];
  for (const token of tokens) {
    const block = render_block(token, options);
    if (block === null) continue;
    if (spaced && lines.length > 0) lines.push('');
    lines.push(...block);
  }
  return lines;
}

/**
 * The terminal lines of a markdown text, wrapped to `options.width` (at least 20 columns). Blocks
 * are separated by one blank line; a code fence still open (an answer being written) renders as
 * code. Never throws: text the lexer cannot read comes back wrapped as it is.
 */
export function render_markdown(text: string, options: MarkdownOptions): string[] {
  const sized = { ...options, width: Math.max(20, options.width) };
  try {
    const tokens = new Lexer({ gfm: true }).lex(text);
    return render_blocks(tokens, sized, true);
  } catch {
    return wrap_lines(text, sized.width);
  }
}
