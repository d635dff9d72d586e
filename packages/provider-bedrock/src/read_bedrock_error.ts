import { one_line } from '@lich/core';
import type { ErrorBodyInfo, HeaderLookup } from '@lich/providers';

/**
 * Reads a Bedrock error: the message of the body (`message`, or `Message`) and, as code, the type
 * the `x-amzn-errortype` header names (`ThrottlingException`, `AccessDeniedException`…), without
 * its `:http://…` tail. Never throws.
 */
export function read_bedrock_error(
  body: unknown,
  text: string,
  headers: HeaderLookup,
): ErrorBodyInfo | undefined {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const said = record.message ?? record.Message;
  const info: ErrorBodyInfo = {};
  if (typeof said === 'string' && said !== '') info.message = one_line(said, 300);
  else if (text.trim() !== '') info.message = one_line(text, 300);
  const type = headers.get('x-amzn-errortype')?.split(':')[0] ?? record.__type;
  if (typeof type === 'string' && type !== '') info.code = type.split('#').at(-1);
  return info;
}
