/**
 * The largest picture each provider kind takes, as its API documents it. Lich scales a larger one
 * down before sending (see `fit_images`), so a screenshot from a 5K display never fails a call.
 */

/** A provider's limits on one picture: its long side in pixels, and its bytes. */
export interface ImageLimits {
  max_side: number;
  max_bytes: number;
}

const MB = 1024 * 1024;

/**
 * Per provider kind:
 * - Anthropic (and Claude on Bedrock) resizes anything over 1568 px on its long side, so larger
 *   is paid for in latency only, and refuses over 5 MB (of base64, so 3.75 MB of bytes);
 * - OpenAI scales to fit 2048 × 2048 and takes up to 20 MB; 3.75 MB keeps requests small;
 * - Gemini takes 3072 px and 20 MB per request; Ollama's vision models work at ~1 Mpx.
 */
export const IMAGE_LIMITS: Readonly<Record<string, ImageLimits>> = Object.freeze({
  anthropic: { max_side: 1568, max_bytes: 3.75 * MB },
  bedrock: { max_side: 1568, max_bytes: 3.75 * MB },
  openai_compat: { max_side: 2048, max_bytes: 3.75 * MB },
  gemini: { max_side: 3072, max_bytes: 3.75 * MB },
  ollama: { max_side: 1568, max_bytes: 3.75 * MB },
});

/** The limits for `kind`: its own, or the strictest (Anthropic's) for a kind not listed. */
export function image_limits(kind: string): ImageLimits {
  return IMAGE_LIMITS[kind] ?? { max_side: 1568, max_bytes: 3.75 * MB };
}
