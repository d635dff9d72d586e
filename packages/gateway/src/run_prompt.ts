import { type SessionHost, SessionHostError } from '@lich/agent';
import { command_prompt } from './command_prompt.js';
import type { Delivery } from './delivery.js';
import { sender_key } from './inbound_message.js';
import type { LiveConversation } from './live_conversations.js';
import { prompt_text } from './prompt_text.js';
import type { SessionWatch } from './session_watch.js';
import type { Claim, LoggedMessage } from './storage.js';

/** A run that could not start, with the messages it was for. */
export class RunFailed extends Error {
  readonly batch: LoggedMessage[];
  /** The host refuses such input every time: no use trying again. */
  readonly lasting: boolean;

  constructor(cause: unknown, batch: LoggedMessage[]) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'RunFailed';
    this.batch = batch;
    this.lasting = SessionHostError.is_instance(cause) && cause.code === 'invalid_argument';
  }
}

/** One prompt to run: where, for which messages, and who answers them. */
export interface PromptRun {
  host: SessionHost;
  delivery: Delivery;
  conversation: LiveConversation;
  /** The conversation's session, open. */
  watch: SessionWatch;
  claim: Claim;
  /** The messages the prompt is for (one, or all those waiting in `collect`). */
  batch: LoggedMessage[];
}

/**
 * Runs one prompt for `batch` in the conversation's session and answers it, with the messages
 * steered into the run (`conversation.in_flight` while it runs).
 *
 * Contract:
 * - the prompt is the batch's text (or a team's custom command's own prompt) with the batch's
 *   pictures, under the sender's and the conversation's budget scopes;
 * - a prompt the host refuses throws `RunFailed` (nothing was answered);
 * - resolves `true` once the run and the steering it took in are answered; steering that came
 *   after the run's last model call is answered by the host's next turn; resolves `false` when the
 *   run was aborted (its messages stay pending);
 * - the typing indicator runs while the prompt does; `in_flight` is cleared however it ends.
 */
export async function run_prompt(run: PromptRun): Promise<boolean> {
  const { host, delivery, conversation, watch, claim, batch } = run;
  const session_id = watch.session_id;
  const stop_typing = delivery.typing(batch.at(-1)?.message);
  try {
    const in_flight: NonNullable<LiveConversation['in_flight']> = { turn_id: null, steered: [] };
    conversation.in_flight = in_flight;
    let ticket: Awaited<ReturnType<SessionHost['prompt']>>;
    try {
      const sender = batch.at(-1)?.message;
      const messages = batch.map((m) => m.message);
      // a team's custom command (`/review x`) sends its own prompt, with the batch's pictures
      const command = await command_prompt(host, session_id, messages);
      const text = command ?? prompt_text(messages);
      const images = messages.flatMap((m) => m.images ?? []);
      ticket = await host.prompt(session_id, text, {
        ...(images.length === 0 ? {} : { images }),
        client_request_id: `gateway:${conversation.key}#${batch.at(-1)?.seq ?? 0}`,
        // the sender's daily budget and the conversation's, where the config sets them
        budget_scopes: {
          conversation: conversation.key,
          ...(sender === undefined ? {} : { sender: sender_key(sender) }),
        },
      });
    } catch (error) {
      throw new RunFailed(error, batch);
    }
    let turn_id = ticket.turn_id;
    in_flight.turn_id = turn_id;
    let answering = batch;
    for (;;) {
      const end = await watch.wait_turn(turn_id);
      const taken = in_flight.steered.splice(0, watch.take_steered(turn_id).length);
      if (end.stop_reason === 'aborted') return false;
      conversation.last_active = Date.now();
      await delivery.answer(claim, [...answering, ...taken], end);
      if (in_flight.steered.length === 0) return true;
      // steering that came after the run's last model call: the host runs it as its next turn
      answering = in_flight.steered.splice(0);
      turn_id = await watch.next_host_turn();
      in_flight.turn_id = turn_id;
    }
  } finally {
    conversation.in_flight = null;
    stop_typing();
  }
}
