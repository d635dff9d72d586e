/** A fetched body as text the model can read, and what it was. */
export interface ReadableContent {
  /** `markdown` (from HTML), `json`, `text`. */
  kind: 'markdown' | 'json' | 'text';
  text: string;
}

/** The media type of a `content-type` header, lower case, without parameters. */
export function media_type(content_type: string | undefined): string {
  return (content_type ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

function charset_of(content_type: string | undefined): string {
  const match = /charset\s*=\s*"?([\w.:-]+)"?/i.exec(content_type ?? '');
  return match?.[1]?.toLowerCase() ?? 'utf-8';
}

function decode(body: Buffer, content_type: string | undefined): string {
  try {
    return new TextDecoder(charset_of(content_type)).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function is_html(type: string, text: string): boolean {
  if (type === 'text/html' || type === 'application/xhtml+xml') return true;
  return type === '' && /^\s*(<!doctype html|<html[\s>])/i.test(text.slice(0, 512));
}

function is_textual(type: string): boolean {
  return (
    type === '' ||
    type.startsWith('text/') ||
    type.endsWith('+json') ||
    type.endsWith('+xml') ||
    [
      'application/json',
      'application/xml',
      'application/javascript',
      'application/x-yaml',
      'application/yaml',
      'application/toml',
    ].includes(type)
  );
}

/**
 * Turns a fetched body into text: HTML into markdown (scripts, styles and other page machinery
 * dropped, with `node-html-markdown`, loaded on the first HTML page only), JSON and other text as
 * they are, in the charset the header names.
 *
 * Contract: resolves with the content, or with `undefined` for a body that is not text (an image,
 * a PDF, an archive), which the caller reports by its type.
 */
export async function readable_content(
  body: Buffer,
  content_type: string | undefined,
): Promise<ReadableContent | undefined> {
  const type = media_type(content_type);
  if (!is_textual(type) && type !== 'application/xhtml+xml') return undefined;
  const text = decode(body, content_type);
  if (is_html(type, text)) {
    const { NodeHtmlMarkdown } = await import('node-html-markdown');
    const markdown = NodeHtmlMarkdown.translate(text, {
      ignore: ['nav', 'footer', 'noscript', 'iframe', 'svg', 'form'],
    });
    return { kind: 'markdown', text: markdown.replace(/\n{3,}/g, '\n\n').trim() };
  }
  if (type === 'application/json' || type.endsWith('+json')) return { kind: 'json', text };
  return { kind: 'text', text };
}
