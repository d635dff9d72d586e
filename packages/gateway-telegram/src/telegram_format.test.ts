import { describe, expect, it } from 'vitest';
import { format_telegram } from './telegram_format.js';

describe('format_telegram', () => {
  it('keeps plain text as it is, with no entities', () => {
    expect(format_telegram('hello\nworld, snake_case and 2*3*4')).toEqual({
      text: 'hello\nworld, snake_case and 2*3*4',
      entities: [],
    });
  });

  it('turns inline markup into entities with UTF-16 offsets', () => {
    const { text, entities } = format_telegram(
      'é 😀 **bold** and `x()` and *it* ~~no~~ [site](https://e.x/a)',
    );
    expect(text).toBe('é 😀 bold and x() and it no site');
    const spans = entities.map((entity) => [
      entity.type,
      text.slice(entity.offset, entity.offset + entity.length),
    ]);
    expect(spans).toEqual([
      ['bold', 'bold'],
      ['code', 'x()'],
      ['italic', 'it'],
      ['strikethrough', 'no'],
      ['text_link', 'site'],
    ]);
    expect(entities.at(-1)?.url).toBe('https://e.x/a');
  });

  it('makes a fenced block a pre entity with its language, markup inside left alone', () => {
    const { text, entities } = format_telegram('Run:\n```sh\necho **hi**\nls\n```\ndone');
    expect(text).toBe('Run:\necho **hi**\nls\ndone');
    expect(entities).toEqual([
      { type: 'pre', offset: 5, length: 'echo **hi**\nls'.length, language: 'sh' },
    ]);
  });

  it('runs an unclosed fence to the end', () => {
    const { text, entities } = format_telegram('```\ncode');
    expect(text).toBe('code');
    expect(entities).toEqual([{ type: 'pre', offset: 0, length: 4 }]);
  });
});
