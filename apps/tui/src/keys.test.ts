import { describe, expect, it } from 'vitest';
import { create_key_parser, type Key } from './keys.js';

function names(keys: Key[]): string[] {
  return keys.map((key) => {
    const mods = `${key.ctrl ? 'C-' : ''}${key.meta ? 'M-' : ''}${key.shift ? 'S-' : ''}`;
    return key.text === undefined ? `${mods}${key.name}` : `${mods}${key.name}:${key.text}`;
  });
}

function parse(...chunks: string[]): string[] {
  const parser = create_key_parser();
  const keys = chunks.flatMap((chunk) => parser.feed(chunk));
  return names([...keys, ...parser.flush()]);
}

describe('create_key_parser', () => {
  it('groups typed characters and tells control keys apart', () => {
    expect(parse('hello\r')).toEqual(['text:hello', 'enter']);
    expect(parse('\u0003', '\u0012', '\t', '\u007F')).toEqual(['C-c', 'C-r', 'tab', 'backspace']);
    expect(parse('é✓')).toEqual(['text:é✓']);
  });

  it('reads arrows, home, end, delete and page keys in their encodings', () => {
    expect(parse('\u001B[A\u001B[B\u001B[C\u001B[D')).toEqual(['up', 'down', 'right', 'left']);
    expect(parse('\u001BOA\u001BOH\u001BOF')).toEqual(['up', 'home', 'end']);
    expect(parse('\u001B[1~\u001B[4~\u001B[3~\u001B[5~\u001B[6~')).toEqual([
      'home',
      'end',
      'delete',
      'pageup',
      'pagedown',
    ]);
    expect(parse('\u001B[1;5D\u001B[1;3C')).toEqual(['C-left', 'M-right']);
    expect(parse('\u001B[Z')).toEqual(['S-tab']);
  });

  it('tells Enter from Shift, Alt and Ctrl+Enter', () => {
    expect(parse('\u001B[13;2u', '\u001B[13;5u', '\u001B\r', '\n')).toEqual([
      'S-enter',
      'C-enter',
      'M-enter',
      'S-enter',
    ]);
    expect(parse('\u001B[27;2;13~', '\u001B[27;5;13~')).toEqual(['S-enter', 'C-enter']);
  });

  it('reads Alt+letter and a lone Escape', () => {
    expect(parse('\u001Bb', '\u001Bf')).toEqual(['M-b', 'M-f']);
    expect(parse('\u001B')).toEqual(['escape']);
    expect(parse('\u001B\u001B[A')).toEqual(['escape', 'up']);
  });

  it('keeps a sequence split across reads whole', () => {
    const parser = create_key_parser();
    expect(parser.feed('a\u001B[')).toEqual([expect.objectContaining({ name: 'text', text: 'a' })]);
    expect(parser.pending()).toBe(true);
    expect(names(parser.feed('1;5C'))).toEqual(['C-right']);
    expect(parser.pending()).toBe(false);
  });

  it('reads a bracketed paste as one key, newlines kept, across reads', () => {
    expect(parse('\u001B[200~line one\r\nline two\rthree\u001B[201~x')).toEqual([
      'paste:line one\nline two\nthree',
      'text:x',
    ]);
    expect(parse('\u001B[200~abc', 'def\u001B[20', '1~\r')).toEqual(['paste:abcdef', 'enter']);
    expect(parse('\u001B[200~a\u001B[Ab\u001B[201~')).toEqual(['paste:a\u001B[Ab']);
  });

  it('takes several lines in one read without markers as a paste, not as submits', () => {
    expect(parse('one\rtwo\r')).toEqual(['paste:one\ntwo\n']);
    expect(parse('one\r')).toEqual(['text:one', 'enter']);
  });

  it('reads CSI u keys with modifiers', () => {
    expect(parse('\u001B[99;5u', '\u001B[27u', '\u001B[97u')).toEqual(['C-c', 'escape', 'text:a']);
  });

  it('drops unknown sequences whole', () => {
    expect(parse('\u001B[?1;2cok')).toEqual(['text:ok']);
  });
});
