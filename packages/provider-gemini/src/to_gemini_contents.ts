import {
  content_images,
  content_text,
  type Message,
  type MessageContent,
  type ToolDefinition,
} from '@lich/core';
import { parse_tool_arguments } from '@lich/providers';
import type { GeminiContent, GeminiFunctionDeclaration, GeminiPart } from './gemini_api.js';
import { to_gemini_schema } from './to_gemini_schema.js';

/** A conversation in Gemini's shape: the system instruction apart, then the turns. */
export interface GeminiPrompt {
  system: string | undefined;
  contents: GeminiContent[];
}

/**
 * Maps Lich messages to Gemini contents.
 *
 * Contract: never throws; the input is not mutated. System messages are joined into the system
 * instruction. An assistant turn becomes a `model` content: its thoughts (`reasoning_parts`, with
 * their signatures) first, then its text, then one `functionCall` per tool call, in order; a
 * reasoning part with no text carries the signature that came on the turn's first function call
 * and goes back on it. Tool results become `functionResponse` parts (`{ result }`, or `{ error }`
 * when `is_error`), named after the call they answer; consecutive results share one `user`
 * content, as parallel calls' answers must, and a result's pictures follow it as `inlineData`
 * parts. A user turn's pictures are `inlineData` parts too. Consecutive user turns are merged.
 */
export function to_gemini_contents(messages: readonly Message[]): GeminiPrompt {
  const system: string[] = [];
  const contents: GeminiContent[] = [];
  const names = new Map<string, string>();
  const push = (role: GeminiContent['role'], parts: GeminiPart[]) => {
    const last = contents.at(-1);
    if (last !== undefined && last.role === role && role === 'user') last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        push('user', content_parts(message.content));
        break;
      case 'assistant': {
        const parts: GeminiPart[] = [];
        let call_signature: string | undefined;
        for (const part of message.reasoning_parts ?? []) {
          if (part.text === '' && part.signature) call_signature ??= part.signature;
          else if (part.text !== '') {
            const thought: GeminiPart = { text: part.text, thought: true };
            if (part.signature) thought.thoughtSignature = part.signature;
            parts.push(thought);
          }
        }
        if (message.content !== '') parts.push({ text: message.content });
        for (const [index, call] of (message.tool_calls ?? []).entries()) {
          names.set(call.id, call.name);
          const part: GeminiPart = {
            functionCall: { name: call.name, args: parse_tool_arguments(call.arguments) },
          };
          if (index === 0 && call_signature !== undefined) part.thoughtSignature = call_signature;
          parts.push(part);
        }
        if (parts.length === 0) parts.push({ text: '' });
        push('model', parts);
        break;
      }
      case 'tool': {
        const name = message.name ?? names.get(message.tool_call_id) ?? 'tool';
        const text = content_text(
          typeof message.content === 'string'
            ? message.content
            : message.content.filter((part) => part.type === 'text'),
        );
        const response = message.is_error ? { error: text } : { result: text };
        const pictures = content_parts(content_images(message.content));
        push('user', [{ functionResponse: { name, response } }, ...pictures]);
        break;
      }
    }
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, contents };
}

/** Text and pictures as parts: a picture as `inlineData` with its bytes as base64. */
function content_parts(content: MessageContent): GeminiPart[] {
  if (typeof content === 'string') return [{ text: content }];
  const parts: GeminiPart[] = [];
  for (const part of content) {
    if (part.type === 'text') parts.push({ text: part.text });
    else if (part.type === 'image' && part.data !== undefined) {
      parts.push({ inlineData: { mimeType: part.media_type, data: part.data } });
    } else if (part.type === 'image') parts.push({ text: content_text([part]) });
  }
  return parts;
}

/** Lich tool definitions as Gemini function declarations, parameters mapped to its subset. */
export function to_gemini_tools(tools: readonly ToolDefinition[]): GeminiFunctionDeclaration[] {
  return tools.map((tool) => {
    const declaration: GeminiFunctionDeclaration = {
      name: tool.name,
      description: tool.description,
    };
    const parameters = to_gemini_schema(tool.parameters);
    if (parameters !== undefined) declaration.parameters = parameters;
    return declaration;
  });
}
