import { join } from 'node:path';
import type { Message, MessageContent, Usage } from '@lich/core';
import { content_text, one_line } from '@lich/core';
import { type ReadSessionOptions, read_session } from './reader.js';
import type { SessionRecord } from './records.js';

function fence(text: string, language = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const marks = '`'.repeat(Math.max(3, longest + 1));
  return `${marks}${language}\n${text}\n${marks}`;
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

function pretty_arguments(text: string): { text: string; language: string } {
  try {
    return { text: JSON.stringify(JSON.parse(text), null, 2), language: 'json' };
  } catch {
    return { text, language: '' };
  }
}

function usage_text(usage: Usage): string {
  const parts = [`${usage.input_tokens} in`, `${usage.output_tokens} out`];
  if (usage.cache_read_tokens) parts.push(`${usage.cache_read_tokens} cache read`);
  if (usage.cache_write_tokens) parts.push(`${usage.cache_write_tokens} cache write`);
  if (usage.reasoning_tokens) parts.push(`${usage.reasoning_tokens} reasoning`);
  return parts.join(', ');
}

/**
 * Content as Markdown: text as it is, a stored picture as an image link to its blob file, a
 * picture not stored (no blob) embedded as a `data:` URL.
 */
function render_content(content: MessageContent, blob_dir: string | undefined): string {
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type === 'text') return part.text;
      const label = (part.name ?? 'image').replace(/[[\]]/g, '');
      if (part.blob !== undefined && blob_dir !== undefined) {
        return `![${label}](<${join(blob_dir, part.blob)}>)`;
      }
      if (part.data !== undefined)
        return `![${label}](data:${part.media_type};base64,${part.data})`;
      return content_text([part]);
    })
    .join('\n\n');
}

function render_message(message: Message, blob_dir: string | undefined): string {
  switch (message.role) {
    case 'system':
      return `### System prompt\n\n${quote(message.content)}`;
    case 'user':
      return `### User\n\n${render_content(message.content, blob_dir)}`;
    case 'assistant': {
      const parts = ['### Assistant'];
      if (message.reasoning) parts.push(quote(`**Reasoning**\n\n${message.reasoning}`));
      if (message.content) parts.push(message.content);
      for (const call of message.tool_calls ?? []) {
        const shown = pretty_arguments(call.arguments);
        parts.push(
          `**Tool call** \`${call.name}\` (\`${call.id}\`)\n\n${fence(shown.text, shown.language)}`,
        );
      }
      return parts.join('\n\n');
    }
    case 'tool':
      return `### Tool result${message.name ? ` \`${message.name}\`` : ''} (\`${message.tool_call_id}\`)${message.is_error ? ' — error' : ''}\n\n${fence(content_text(message.content))}${images_after(message.content, blob_dir)}`;
  }
}

/** A tool result's pictures, below its fenced text. */
function images_after(content: MessageContent, blob_dir: string | undefined): string {
  if (typeof content === 'string') return '';
  const pictures = content.filter((part) => part.type === 'image');
  return pictures.length === 0 ? '' : `\n\n${render_content(pictures, blob_dir)}`;
}

function render_record(record: SessionRecord, blob_dir: string | undefined): string | undefined {
  switch (record.type) {
    case 'session_start':
      return undefined;
    case 'run_start':
      return `## Run ${record.run}\n\n_Started ${record.at}, at most ${record.max_turns} turns._`;
    case 'message':
      return render_message(record.message, blob_dir);
    case 'budget_exhausted':
      return `_The turn budget ran out after ${record.turns_used} of ${record.max_turns} turns${record.grace ? '; a last call without tools wraps up' : ''}._`;
    case 'compress_end':
      if (!record.ok) return `_Compression failed: ${record.error ?? 'unknown error'}._`;
      return quote(
        `**Summary** of messages ${(record.from ?? 0) + 1}–${record.to ?? 0} (${record.replaced ?? 0} messages compressed)\n\n${record.summary ?? record.summary_message?.content ?? ''}`,
      );
    case 'run_end':
      return `_Run ${record.run} ended: ${record.stopped_reason} after ${record.turns_used} turns; usage ${usage_text(record.usage)}.${record.error ? ` Error: ${one_line(record.error, 500)}` : ''}_`;
  }
}

/**
 * A Markdown rendering of one session as it was recorded: each run, its messages (system
 * prompt and reasoning as quotes, tool calls and results as fenced blocks), budget notes,
 * compression summaries and how each run ended.
 *
 * Contract: reads the file as `read_session` does (never modifies it without `repair`) and
 * rejects with its errors; a torn last line is left out and noted at the end.
 */
export async function export_markdown(
  path: string,
  options: ReadSessionOptions & { blob_dir?: string } = {},
): Promise<string> {
  const contents = await read_session(path, options);
  const start = contents.records.find((record) => record.type === 'session_start');
  const first_run = contents.records.find((record) => record.type === 'run_start' && record.input);
  const title = first_run?.type === 'run_start' ? first_run.input : 'Session';
  const blocks = [`# ${one_line(title, 120)}`];
  if (start?.type === 'session_start') {
    blocks.push(
      [
        `- Session: \`${start.id}\``,
        `- Created: ${start.created}`,
        `- Model: ${start.model}`,
        `- Work dir: \`${start.work_dir}\``,
        `- Lich: ${start.lich_version}`,
      ].join('\n'),
    );
  }
  for (const record of contents.records) {
    const block = render_record(record, options.blob_dir);
    if (block !== undefined) blocks.push(block);
  }
  for (const problem of contents.problems) blocks.push(`_Note: ${problem.message}._`);
  return `${blocks.join('\n\n')}\n`;
}
