import { describe, expect, it } from 'vitest';
import { prompt_input, slash_command } from './prompt_input.js';

describe('prompt_input', () => {
  it('joins text and links as written and appends embedded files as context', () => {
    expect(
      prompt_input([
        { type: 'text', text: 'compare' },
        { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' },
        { type: 'text', text: ' with ' },
        { type: 'resource', resource: { uri: 'file:///w/b.ts', text: 'let b;' } },
      ]),
    ).toBe('compare @/w/a.ts with\n\n<context ref="/w/b.ts">\nlet b;\n</context>');
  });

  it('says what it left out', () => {
    expect(prompt_input([{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }])).toBe(
      '[an audio clip was attached and left out: Lich takes text and pictures only]',
    );
    expect(
      prompt_input([{ type: 'resource', resource: { uri: 'file:///w/x.bin', blob: 'AAAA' } }]),
    ).toBe('[binary resource /w/x.bin left out: Lich takes text and pictures only]');
  });

  it('leaves image blocks to prompt_images', () => {
    expect(
      prompt_input([
        { type: 'text', text: 'what is wrong here' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ]),
    ).toBe('what is wrong here');
  });
});

describe('slash_command', () => {
  it('finds a command and its arguments at the start only', () => {
    expect(slash_command('/model gpt-x')).toEqual({ name: 'model', args: 'gpt-x' });
    expect(slash_command('  /clear ')).toEqual({ name: 'clear', args: '' });
    expect(slash_command('please /clear')).toBeUndefined();
    expect(slash_command('/ nothing')).toBeUndefined();
  });
});
