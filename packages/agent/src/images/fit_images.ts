/**
 * Makes the pictures of a request fit the provider it goes to, just before it goes: each picture
 * over the provider's limits is scaled down (once per picture and limits: the scaled copy is
 * remembered for the next turns), and a provider configured with `vision: false` is refused
 * before any money is spent.
 */
import {
  has_images,
  type ImagePart,
  image_info,
  type Message,
  messages_have_images,
} from '@lich/core';
import { ProviderError } from '@lich/providers';
import { downscale_image, ImageTooLargeError } from './downscale_image.js';
import { image_limits } from './image_limits.js';

/** The picture sent in place of each original, per limits. */
const fitted = new WeakMap<ImagePart, Map<string, ImagePart>>();

/** Who the request goes to. */
export interface ImageTarget {
  kind: string;
  model: string;
  /** `false` when the configuration says this model takes no pictures. */
  vision?: boolean;
}

/**
 * `messages` with every picture within `target`'s limits (`image_limits`). Messages without
 * pictures come back as the same objects; the input is not mutated.
 *
 * Contract: rejects with a `ProviderError` of kind `config` (the router then tries the next
 * provider) when `target.vision` is false or a picture cannot be made to fit (`sharp` missing),
 * naming the model and what to do.
 */
export async function fit_images(
  messages: readonly Message[],
  target: ImageTarget,
): Promise<readonly Message[]> {
  if (!messages_have_images(messages)) return messages;
  const refuse = (text: string, cause?: unknown) =>
    new ProviderError({
      kind: 'config',
      provider: target.kind,
      model: target.model,
      message: `${target.kind} (${target.model}): ${text}`,
      retryable: false,
      ...(cause === undefined ? {} : { cause }),
    });
  if (target.vision === false) {
    throw refuse(
      'this model is configured to take no pictures ("vision": false): send the prompt without the picture, or use a model that can see',
    );
  }
  const limits = image_limits(target.kind);
  const key = `${limits.max_side}:${limits.max_bytes}`;
  const fit_one = async (part: ImagePart): Promise<ImagePart> => {
    if (part.data === undefined) return part;
    const known = fitted.get(part)?.get(key);
    if (known !== undefined) return known;
    const bytes = Buffer.from(part.data, 'base64');
    const info = image_info(bytes);
    const name = part.name ?? 'the picture';
    let result: ImagePart = part;
    if (info === undefined) {
      throw refuse(`${name} is not a PNG, JPEG, GIF or WebP picture`);
    }
    const fits = Math.max(info.width, info.height) <= limits.max_side;
    if (!fits || bytes.length > limits.max_bytes) {
      try {
        const scaled = await downscale_image(bytes, info, limits, name);
        result = {
          ...part,
          data: scaled.bytes.toString('base64'),
          media_type: scaled.media_type,
          width: scaled.width,
          height: scaled.height,
        };
        delete result.blob;
      } catch (error) {
        if (error instanceof ImageTooLargeError) throw refuse(error.message, error);
        throw refuse(`${name} could not be scaled down: ${String(error)}`, error);
      }
    } else if (part.media_type !== info.media_type) {
      result = { ...part, media_type: info.media_type };
    }
    let by_limits = fitted.get(part);
    if (by_limits === undefined) {
      by_limits = new Map();
      fitted.set(part, by_limits);
    }
    by_limits.set(key, result);
    return result;
  };
  const result: Message[] = [];
  for (const message of messages) {
    if ((message.role !== 'user' && message.role !== 'tool') || !has_images(message.content)) {
      result.push(message);
      continue;
    }
    const content = [];
    for (const part of message.content as Exclude<typeof message.content, string>) {
      content.push(part.type === 'image' ? await fit_one(part) : part);
    }
    result.push({ ...message, content } as Message);
  }
  return result;
}

/**
 * A provider's refusal of a request with pictures, said so that the person knows which model
 * and what to do: a 400-class answer to a request with pictures names the model and the
 * `vision: false` setting. Other errors come back as they are.
 */
export function explain_image_refusal(error: unknown, target: ImageTarget): unknown {
  if (!ProviderError.is_instance(error) || error.kind !== 'http') return error;
  if (error.status === undefined || error.status < 400 || error.status >= 500) return error;
  if (error.status === 401 || error.status === 403 || error.status === 429) return error;
  return new ProviderError({
    kind: 'http',
    provider: error.provider,
    model: error.model,
    status: error.status,
    ...(error.provider_message === undefined ? {} : { provider_message: error.provider_message }),
    ...(error.code === undefined ? {} : { code: error.code }),
    ...(error.request_id === undefined ? {} : { request_id: error.request_id }),
    retryable: false,
    message: `${error.message} — the request held a picture: if ${target.model} cannot see pictures, use a model that can, or set "vision": false on it in the config so Lich says so before sending`,
    cause: error,
  });
}
