import { fileURLToPath } from 'node:url';
import type { ContentBlock } from './acp_sdk.js';

function uri_label(uri: string): string {
  if (uri.startsWith('file://')) {
    try {
      return fileURLToPath(uri);
    } catch {
      return uri;
    }
  }
  return uri;
}

/** Joins pieces as written, adding a space only where two words would run together. */
function join_parts(parts: readonly string[]): string {
  let text = '';
  for (const part of parts) {
    if (text !== '' && part !== '' && !/\s$/.test(text) && !/^\s/.test(part)) text += ' ';
    text += part;
  }
  return text;
}

/**
 * The text of the user message for a `session/prompt`: its text blocks as written; an embedded
 * text resource (a file the editor attached, unsaved changes included) as a `<context>` block
 * naming its path; a resource link as `@path`; what Lich cannot pass on (audio, binary resources)
 * as a one-line note, so the model knows something was left out. Image blocks add nothing here:
 * they go with the text as pictures (`prompt_images`).
 *
 * Contract: pure, never throws.
 */
export function prompt_input(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  const context: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'resource_link':
        parts.push(`@${uri_label(block.uri)}`);
        break;
      case 'resource': {
        const { resource } = block;
        const where = uri_label(resource.uri);
        if ('text' in resource) {
          context.push(`<context ref="${where}">\n${resource.text}\n</context>`);
        } else {
          parts.push(`[binary resource ${where} left out: Lich takes text and pictures only]`);
        }
        break;
      }
      case 'image':
        break;
      case 'audio':
        parts.push('[an audio clip was attached and left out: Lich takes text and pictures only]');
        break;
    }
  }
  const text = join_parts(parts).trim();
  return context.length === 0 ? text : `${text}\n\n${context.join('\n\n')}`;
}

/** A slash command at the start of the prompt: `/name args` (the name without the slash). */
export function slash_command(input: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z][\w:-]*)(?:\s+([\s\S]*))?$/.exec(input.trim());
  if (!match?.[1]) return undefined;
  return { name: match[1], args: (match[2] ?? '').trim() };
}
