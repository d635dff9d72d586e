/**
 * Markdown as models write it, turned into Telegram message entities: the text without its markup
 * and the spans to format. Entities need no escaping, so no answer can fail to parse the way a
 * half-escaped MarkdownV2 message does; the text only gets shorter, so a chunk within 4096
 * characters stays within it.
 */

/** One Telegram message entity (offsets and lengths in UTF-16 code units, as JS strings count). */
export interface TelegramEntity {
  type: 'bold' | 'italic' | 'code' | 'pre' | 'strikethrough' | 'text_link';
  offset: number;
  length: number;
  language?: string;
  url?: string;
}

/** A message ready to send: plain text plus the entities that format it. */
export interface FormattedMessage {
  text: string;
  entities: TelegramEntity[];
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)[^\n]*$/;

// One alternation, tried left to right at each position: code, link, bold, strike, italic.
const INLINE =
  /`([^`\n]+)`|\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)|\*\*([^*\n]+?)\*\*|__([^_\n]+?)__|~~([^~\n]+?)~~|(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])|(?<![\w_])_(?!\s)([^_\n]+?)(?<!\s)_(?![\w_])/g;

function format_inline(line: string, start: number, entities: TelegramEntity[]): string {
  let out = '';
  let last = 0;
  for (const match of line.matchAll(INLINE)) {
    const index = match.index ?? 0;
    out += line.slice(last, index);
    const offset = start + out.length;
    const [, code, link_text, link_url, bold, bold2, strike, italic, italic2] = match;
    if (code !== undefined) {
      entities.push({ type: 'code', offset, length: code.length });
      out += code;
    } else if (link_text !== undefined && link_url !== undefined) {
      entities.push({ type: 'text_link', offset, length: link_text.length, url: link_url });
      out += link_text;
    } else {
      const inner = bold ?? bold2 ?? strike ?? italic ?? italic2 ?? '';
      const type =
        bold !== undefined || bold2 !== undefined
          ? 'bold'
          : strike !== undefined
            ? 'strikethrough'
            : 'italic';
      if (inner.length > 0) entities.push({ type, offset, length: inner.length });
      out += inner;
    }
    last = index + match[0].length;
  }
  return out + line.slice(last);
}

/**
 * Formats `markdown` as text plus entities. Contract: never throws; code fences become `pre`
 * (with their language), inline code `code`, `**x**`/`__x__` bold, `*x*`/`_x_` italic (not inside
 * words, so `snake_case` stays), `~~x~~` strikethrough, `[x](https://…)` a link; anything else is
 * kept as written. An unclosed fence runs to the end.
 */
export function format_telegram(markdown: string): FormattedMessage {
  const entities: TelegramEntity[] = [];
  let text = '';
  let first = true;
  let fence: { char: string; size: number; language: string; start: number; lines: number } | null =
    null;
  const close_fence = (open: { language: string; start: number }) => {
    const length = text.length - open.start;
    if (length === 0) return;
    entities.push({
      type: 'pre',
      offset: open.start,
      length,
      ...(open.language === '' ? {} : { language: open.language }),
    });
  };
  for (const line of markdown.split('\n')) {
    const match = FENCE.exec(line);
    if (fence === null) {
      if (!first) text += '\n';
      first = false;
      if (match) {
        const marker = match[1] as string;
        fence = {
          char: marker[0] as string,
          size: marker.length,
          language: match[2] ?? '',
          start: text.length,
          lines: 0,
        };
      } else {
        text += format_inline(line, text.length, entities);
      }
      continue;
    }
    const trimmed = line.trim();
    if (trimmed.length >= fence.size && trimmed === fence.char.repeat(trimmed.length)) {
      close_fence(fence);
      fence = null;
      continue;
    }
    if (fence.lines > 0) text += '\n';
    text += line;
    fence.lines += 1;
  }
  if (fence !== null) close_fence(fence);
  return { text, entities: entities.sort((a, b) => a.offset - b.offset) };
}
