import { describe, expect, it } from 'vitest';
import { attachment_label, max_image_bytes_setting, not_a_picture } from './attachment_intake.js';
import { GatewayConfigError } from './gateway_config.js';
import { DEFAULT_TEXTS } from './gateway_texts.js';

describe('max_image_bytes_setting', () => {
  it('reads a whole number of bytes (from a flag too), or nothing', () => {
    expect(max_image_bytes_setting(undefined)).toBeUndefined();
    expect(max_image_bytes_setting(5_000_000)).toBe(5_000_000);
    expect(max_image_bytes_setting('2048')).toBe(2048);
  });

  it('refuses anything else with a config error', () => {
    for (const value of [0, 100, 1.5, '10MB', -4096, null]) {
      expect(() => max_image_bytes_setting(value)).toThrow(GatewayConfigError);
    }
  });
});

describe('refusals', () => {
  it('name an attachment by its name, else its kind', () => {
    expect(attachment_label({ kind: 'voice' })).toBe('a voice');
    expect(attachment_label({ kind: 'audio_file' })).toBe('an audio file');
    expect(not_a_picture({ kind: 'document', name: 'notes.pdf' })).toEqual({
      what: 'notes.pdf',
      why: 'I understand only text and pictures',
    });
  });

  it('read as one sentence, or a list', () => {
    const one = [{ what: 'notes.pdf', why: 'I understand only text and pictures' }];
    expect(DEFAULT_TEXTS.attachments_refused(one)).toBe(
      'Sorry, I could not take notes.pdf: I understand only text and pictures.',
    );
    expect(
      DEFAULT_TEXTS.attachments_refused([
        ...one,
        { what: 'big.png', why: 'the picture is 12 MB, over the limit of 10 MB' },
      ]),
    ).toBe(
      'Sorry, I could not take everything you sent:\n' +
        '- notes.pdf: I understand only text and pictures\n' +
        '- big.png: the picture is 12 MB, over the limit of 10 MB',
    );
  });
});
