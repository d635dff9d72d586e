/** A `GatewayAdapter` that records what the bus sends, for the bus's tests. */
import type {
  GatewayAdapter,
  GatewayIngress,
  InboundMessage,
  OutboxEntry,
  ReplyTarget,
  Settlement,
} from '../src/index.js';

let next_id = 0;

/** A message of platform `test`; ids are unique unless given. */
export function make_message(
  overrides: Partial<InboundMessage> & { chat?: string } = {},
): InboundMessage {
  next_id += 1;
  const chat_id = overrides.chat ?? overrides.chat_id ?? 'c1';
  const { chat: _chat, ...rest } = overrides;
  return {
    platform: 'test',
    account: 'bot',
    chat_id,
    conversation_key: `test:${chat_id}`,
    sender: { id: 'owner', name: 'Owner', is_bot: false },
    is_direct: true,
    mentions_bot: false,
    text: `message ${next_id}`,
    attachments: [],
    platform_message_id: `m${next_id}`,
    reply_to: null,
    sent_at: Date.now(),
    ...rest,
  };
}

export class FakeAdapter implements GatewayAdapter {
  readonly platform = 'test';
  max_message_chars = 4096;
  can_pair = true;
  typing_interval_ms: number | undefined = undefined;
  ingress: GatewayIngress | null = null;
  readonly sent: OutboxEntry[] = [];
  readonly notices: { target: ReplyTarget; text: string; reply_to: string | null }[] = [];
  readonly settlements: Settlement[] = [];
  readonly typing_calls: ReplyTarget[] = [];
  /** Sends to fail before one succeeds (counts down). */
  fail_sends = 0;
  intake = true;
  closed = false;
  readonly #watchers = new Set<() => void>();

  async start(ingress: GatewayIngress): Promise<void> {
    this.ingress = ingress;
  }

  async send(chunk: OutboxEntry): Promise<void> {
    if (this.fail_sends > 0) {
      this.fail_sends -= 1;
      throw new Error('platform down');
    }
    this.sent.push(chunk);
    this.#changed();
  }

  async notify(target: ReplyTarget, text: string, reply_to: string | null): Promise<void> {
    this.notices.push({ target, text, reply_to });
    this.#changed();
  }

  async typing(target: ReplyTarget): Promise<void> {
    this.typing_calls.push(target);
  }

  settled(settlement: Settlement): void {
    this.settlements.push(settlement);
    this.#changed();
  }

  async stop_intake(): Promise<void> {
    this.intake = false;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Resolves once `check` holds (checked after every send, notice and settlement). */
  until(check: () => boolean, timeout_ms = 10_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#watchers.delete(watcher);
        reject(new Error('FakeAdapter.until: timed out'));
      }, timeout_ms);
      const watcher = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.#watchers.delete(watcher);
        resolve();
      };
      this.#watchers.add(watcher);
    });
  }

  /** The texts sent to a conversation, in order. */
  texts(conversation_key: string): string[] {
    return this.sent
      .filter((entry) => entry.target.conversation_key === conversation_key)
      .map((entry) => entry.text);
  }

  #changed(): void {
    for (const watcher of [...this.#watchers]) watcher();
  }
}
