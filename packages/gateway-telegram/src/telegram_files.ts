import {
  type Attachment,
  type AttachmentIntake,
  byte_size_text,
  download_image,
  type ImagePart,
  ONLY_TEXT_AND_PICTURES,
  type RefusedAttachment,
} from '@lich/gateway';

/** Telegram's Bot API root, where its files are served too. */
export const TELEGRAM_API_ROOT = 'https://api.telegram.org';

/** The Bot API's answer to `getFile`, the fields read here. */
export interface TelegramFileInfo {
  file_path?: string;
  file_size?: number;
}

/** What `take_telegram_attachments` needs. */
export interface TelegramFilesOptions {
  /** `getFile` of the bot's API. */
  get_file: (file_id: string, signal: AbortSignal) => Promise<TelegramFileInfo>;
  token: string;
  /** The Bot API root the bot is configured with; files are downloaded from this host only. */
  api_root: string;
  max_bytes: number;
  signal: AbortSignal;
}

const KIND_WORDS: Readonly<Record<string, string>> = {
  image: 'the picture',
  document: 'the document',
  voice: 'the voice message',
  audio: 'the audio file',
  video: 'the video',
  video_note: 'the video message',
  animation: 'the animation',
  sticker: 'the sticker',
};

function label(attachment: Attachment): string {
  if (attachment.name !== undefined && attachment.name !== '') return attachment.name;
  return KIND_WORDS[attachment.kind] ?? `the ${attachment.kind.replace(/_/g, ' ')}`;
}

/**
 * Takes a Telegram message's attachments: each picture (a photo, an image document) is looked up
 * with `getFile` and downloaded from `<api_root>/file/bot<token>/<file_path>` (the configured Bot
 * API host and nowhere else) when its size, as Telegram reports it before and after `getFile`
 * and as counted while downloading, is within `max_bytes`; every other file is refused.
 *
 * Contract: never throws; the refusals never show the token.
 */
export async function take_telegram_attachments(
  attachments: readonly Attachment[],
  options: TelegramFilesOptions,
): Promise<AttachmentIntake> {
  const images: ImagePart[] = [];
  const refused: RefusedAttachment[] = [];
  const over = (size: number) =>
    `the picture is ${byte_size_text(size)}, over the limit of ${byte_size_text(options.max_bytes)}`;
  const root = options.api_root.replace(/\/+$/, '');
  for (const attachment of attachments) {
    const what = label(attachment);
    if (attachment.kind !== 'image' || attachment.file_id === undefined) {
      refused.push({ what, why: ONLY_TEXT_AND_PICTURES });
      continue;
    }
    if (attachment.size_bytes !== undefined && attachment.size_bytes > options.max_bytes) {
      refused.push({ what, why: over(attachment.size_bytes) });
      continue;
    }
    let info: TelegramFileInfo;
    try {
      info = await options.get_file(attachment.file_id, options.signal);
    } catch {
      refused.push({ what, why: 'Telegram would not give me the file' });
      continue;
    }
    if (info.file_size !== undefined && info.file_size > options.max_bytes) {
      refused.push({ what, why: over(info.file_size) });
      continue;
    }
    if (info.file_path === undefined || info.file_path === '') {
      refused.push({ what, why: 'Telegram would not give me the file' });
      continue;
    }
    const path = info.file_path.split('/').map(encodeURIComponent).join('/');
    const taken = await download_image(`${root}/file/bot${options.token}/${path}`, {
      allowed_hosts: [new URL(root).host],
      max_bytes: options.max_bytes,
      declared_bytes: info.file_size,
      media_type: attachment.mime_type,
      name: attachment.name,
      signal: options.signal,
    });
    if (taken.ok) images.push(taken.image);
    else refused.push({ what, why: taken.error });
  }
  return { images, refused };
}
