import type { PermissionOption, SessionHost } from '@lich/agent';
import type { GatewayAdapter } from './adapter.js';
import type { GatewayTexts } from './gateway_texts.js';
import type { InboundMessage } from './inbound_message.js';
import type { PermissionRequest } from './session_watch.js';
import type { ReplyTarget } from './storage.js';

const ANSWERS: [RegExp, PermissionOption][] = [
  [/^(y|yes|allow|ok)\b/i, 'allow_once'],
  [/^(a|always)\b/i, 'allow_always'],
  [/^(n|no|deny|reject)\b/i, 'reject_once'],
];

/** The answer a reply text gives, or null when it is not one. */
export function parse_approval(text: string): PermissionOption | null {
  const trimmed = text.trim();
  for (const [pattern, option] of ANSWERS) if (pattern.test(trimmed)) return option;
  return null;
}

interface Waiting {
  request: PermissionRequest;
  conversation_key: string;
}

/**
 * Routes the permission requests of every gateway session to one owner's chat, as a reply
 * prompt, and takes the owner's `y` / `a` / `n` as the answer.
 *
 * Contract: requests are asked one at a time, oldest first; an owner message that is an answer
 * while a request waits answers the oldest one (and is not a prompt); a request resolved
 * elsewhere (an abort) is dropped; without a router the bus subscribes without `can_approve`,
 * so `ask` means deny.
 */
export class ApprovalRouter {
  readonly owner: ReplyTarget;
  readonly #host: SessionHost;
  readonly #adapter: GatewayAdapter;
  readonly #texts: GatewayTexts;
  readonly #waiting: Waiting[] = [];

  constructor(options: {
    owner: ReplyTarget;
    host: SessionHost;
    adapter: GatewayAdapter;
    texts: GatewayTexts;
  }) {
    this.owner = options.owner;
    this.#host = options.host;
    this.#adapter = options.adapter;
    this.#texts = options.texts;
  }

  /** Requests waiting for the owner. */
  get waiting(): number {
    return this.#waiting.length;
  }

  request(request: PermissionRequest, conversation_key: string): void {
    this.#waiting.push({ request, conversation_key });
    if (this.#waiting.length === 1) this.#ask();
  }

  resolved(request_id: string): void {
    const index = this.#waiting.findIndex((item) => item.request.request_id === request_id);
    if (index === -1) return;
    this.#waiting.splice(index, 1);
    if (index === 0 && this.#waiting.length > 0) this.#ask();
  }

  /** Takes `message` as the owner's answer when it is one; resolves the notice, or null. */
  async answer(message: InboundMessage): Promise<string | null> {
    if (message.conversation_key !== this.owner.conversation_key) return null;
    const first = this.#waiting[0];
    const option = parse_approval(message.text);
    if (first === undefined || option === null) return null;
    this.#waiting.shift();
    const taken = await this.#host.respond_permission(first.request.request_id, option);
    if (this.#waiting.length > 0) this.#ask();
    return taken
      ? `${option.replace('_', ' ')}: ${first.request.title}`
      : 'That request has ended.';
  }

  #ask(): void {
    const first = this.#waiting[0];
    if (first === undefined) return;
    const text = this.#texts.approval_prompt(
      first.conversation_key,
      first.request.title,
      this.#waiting.length,
    );
    this.#adapter.notify(this.owner, text, null).catch(() => undefined);
  }
}
