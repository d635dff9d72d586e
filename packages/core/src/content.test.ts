import { describe, expect, it } from 'vitest';
import {
  content_images,
  content_text,
  has_images,
  image_tokens,
  messages_have_images,
  with_images,
} from './content.js';
import { estimate_tokens } from './tokens.js';
import type { ImagePart } from './types.js';

const SHOT: ImagePart = { type: 'image', media_type: 'image/png', data: 'AAAA', name: 'shot.png' };

describe('content parts', () => {
  it('keeps plain text plain, and puts pictures after the text', () => {
    expect(with_images('hi', [])).toBe('hi');
    expect(with_images('hi', [SHOT])).toEqual([{ type: 'text', text: 'hi' }, SHOT]);
    expect(with_images('', [SHOT])).toEqual([SHOT]);
  });

  it('reads text with each picture as its name, and finds the pictures', () => {
    const content = with_images('look', [SHOT, { type: 'image', media_type: 'image/jpeg' }]);
    expect(content_text(content)).toBe('look\n\n[image: shot.png]\n\n[image]');
    expect(content_images(content)).toHaveLength(2);
    expect(has_images(content)).toBe(true);
    expect(has_images('text')).toBe(false);
    expect(messages_have_images([{ role: 'user', content: 'a' }])).toBe(false);
    expect(messages_have_images([{ role: 'tool', tool_call_id: 'x', content }])).toBe(true);
  });

  it('counts a picture as the providers bill it, not as its base64', () => {
    // Anthropic: 1000×1000 / 750 = 1334; OpenAI high detail: 85 + 170 × 4 tiles = 765
    expect(image_tokens({ ...SHOT, width: 1000, height: 1000 })).toBe(1334);
    // a huge screenshot is scaled first: 1568 × 1045.3 / 750 → 2186 for Anthropic
    expect(image_tokens({ ...SHOT, width: 6000, height: 4000 })).toBe(2186);
    const base64 = 'A'.repeat(400_000);
    const tokens = estimate_tokens([
      { role: 'user', content: [{ ...SHOT, data: base64, width: 1000, height: 1000 }] },
    ]);
    expect(tokens).toBe(1334);
  });
});
