import {
  type Attachment,
  type AttachmentIntake,
  download_image,
  type ImagePart,
  ONLY_TEXT_AND_PICTURES,
  type RefusedAttachment,
} from '@lich/gateway';

/** Discord's attachment hosts: the only ones a picture is downloaded from. */
export const DISCORD_CDN_HOSTS: readonly string[] = ['cdn.discordapp.com', 'media.discordapp.net'];

/**
 * Takes a Discord message's attachments: each one Discord says is an image is downloaded from
 * its URL when that URL is on `hosts` (Discord's CDN) and within `max_bytes` (the size Discord
 * reports, then the bytes counted); every other file is refused.
 *
 * Contract: never throws; an attachment URL elsewhere is refused and never fetched.
 */
export async function take_discord_attachments(
  attachments: readonly Attachment[],
  options: { hosts: readonly string[]; max_bytes: number; signal: AbortSignal },
): Promise<AttachmentIntake> {
  const images: ImagePart[] = [];
  const refused: RefusedAttachment[] = [];
  for (const attachment of attachments) {
    const what = attachment.name ?? `the ${attachment.kind}`;
    if (attachment.kind !== 'image' || attachment.url === undefined) {
      refused.push({ what, why: ONLY_TEXT_AND_PICTURES });
      continue;
    }
    const taken = await download_image(attachment.url, {
      allowed_hosts: options.hosts,
      max_bytes: options.max_bytes,
      declared_bytes: attachment.size_bytes,
      media_type: attachment.mime_type,
      name: attachment.name,
      signal: options.signal,
    });
    if (taken.ok) images.push(taken.image);
    else refused.push({ what, why: taken.error });
  }
  return { images, refused };
}
