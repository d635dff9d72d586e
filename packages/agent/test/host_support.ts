import { join } from 'node:path';
import type { ChatFn, ChatOptions, ChatResult, Message, ToolDefinition } from '@lich/core';
import { content_text } from '@lich/core';
import { make_temp_dir, type TempDir, to_chat_result } from '@lich/testkit';
import { Agent } from '../src/agent.js';
import { make_config } from '../src/config/config_load.js';
import { create_session_host, type SessionHostOptions } from '../src/host/session_host.js';
import type { HostEvent, HostEventType, SessionHost } from '../src/host/session_host_types.js';

/** One call the scripted chat received. */
export interface ScriptedCall {
  messages: Message[];
  tools: ToolDefinition[];
  options: ChatOptions;
}

/** What the scripted chat answers a call with, given the call. */
export type ChatHandler = (
  call: ScriptedCall,
  options?: ChatOptions,
) => Promise<ChatResult | string> | ChatResult | string;

/** A ChatFn answering every call through `handler`, recording the calls. */
export function scripted_chat(handler: ChatHandler): ChatFn & { calls: ScriptedCall[] } {
  const calls: ScriptedCall[] = [];
  const chat = async (
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    options: ChatOptions = {},
  ): Promise<ChatResult> => {
    const call = { messages: structuredClone([...messages]), tools: [...tools], options };
    calls.push(call);
    const answer = await handler(call, options);
    const result = typeof answer === 'string' ? to_chat_result(answer) : answer;
    for (const piece of result.message.content.match(/.{1,3}/gs) ?? []) {
      options.on_delta?.({ kind: 'text', text: piece });
    }
    return result;
  };
  return Object.assign(chat, { calls });
}

/** The last user message of a call. */
export function last_user(call: ScriptedCall): string {
  return content_text(call.messages.findLast((message) => message.role === 'user')?.content ?? '');
}

/** A promise and its resolver. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Waits for the signal to abort, then rejects as an aborted fetch does. */
export function until_aborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(new DOMException('aborted', 'AbortError'));
    if (signal?.aborted) fail();
    signal?.addEventListener('abort', fail, { once: true });
  });
}

/** A host over an Agent with `chat`, in a temp work dir. */
export async function make_host(
  chat: ChatFn,
  options: Partial<SessionHostOptions> & { config?: Record<string, unknown> } = {},
): Promise<{ host: SessionHost; agent: Agent; temp: TempDir; work_dir: string }> {
  const temp = await make_temp_dir({
    prefix: 'lich-host-',
    files: { 'work/notes.txt': 'the secret word is lich\n' },
  });
  const work_dir = join(temp.path, 'work');
  const { config, ...host_options } = options;
  const agent = new Agent({
    config: make_config({ work_dir, ...config }),
    chat,
    lich_version: '0.0.0-test',
    on_warning: () => undefined,
  });
  const host = create_session_host({ agent, on_warning: () => undefined, ...host_options });
  return { host, agent, temp, work_dir };
}

/** Collects a session's events. */
export function collector(): {
  events: HostEvent[];
  listener: (event: HostEvent) => void;
  of: (type: HostEventType) => HostEvent[];
  next: (type: HostEventType, where?: (event: HostEvent) => boolean) => Promise<HostEvent>;
} {
  const events: HostEvent[] = [];
  const waiters: {
    type: HostEventType;
    where: (event: HostEvent) => boolean;
    resolve: (event: HostEvent) => void;
  }[] = [];
  return {
    events,
    listener: (event) => {
      events.push(event);
      for (const waiter of [...waiters]) {
        if (waiter.type === event.type && waiter.where(event)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    },
    of: (type) => events.filter((event) => event.type === type),
    next: (type, where = () => true) =>
      new Promise((resolve) => {
        waiters.push({ type, where, resolve });
      }),
  };
}
