/**
 * What a live session learns of a turn from its run's events: the messages the run ended with,
 * the last finish reason, the context gauge, and the spending limit that stopped it, if one did.
 */
import { type AgentEvent, estimate_tokens, type Message } from '@lich/core';
import type { TurnStopReason } from './session_host_types.js';

/** Follows one run's events (`hear` each) and says why the turn ended (`stop_reason`). */
export class TurnWatch {
  messages: readonly Message[] | null = null;
  finish_reason: string | undefined;
  /**
   * The context gauge: the loop's own estimate of each request (the figure that decides
   * compression, so it drops after a compaction) plus what the run appended since.
   */
  context_tokens = 0;
  /** The message and scope of the spending limit that stopped the run. */
  budget: string | undefined;
  budget_scope: string | undefined;

  /** Takes in one event of the run. */
  hear(event: AgentEvent): void {
    if (event.type === 'llm_start') this.context_tokens = event.context_tokens;
    else if (event.type === 'run_end') this.messages = event.messages;
    else if (event.type === 'llm_end') {
      this.finish_reason = event.finish_reason;
      this.context_tokens += estimate_tokens([event.message]);
    } else if (event.type === 'tool_call_end') {
      this.context_tokens += estimate_tokens([event.message]);
    } else if (event.type === 'steer') this.context_tokens += estimate_tokens(event.messages);
    else if (event.type === 'budget' && event.level === 'stop') {
      this.budget = event.message;
      this.budget_scope = event.scope;
    }
  }

  /** Why the turn ended, from the loop's `stopped` and what was heard. */
  stop_reason(stopped: string): TurnStopReason {
    if (stopped === 'aborted' || stopped === 'max_turns' || stopped === 'error') return stopped;
    // a spending limit stops the loop with 'budget'; a limit that said nothing is the turn budget
    if (stopped === 'budget') return this.budget === undefined ? 'max_turns' : 'budget';
    return this.finish_reason === 'content_filter' ? 'refusal' : 'final';
  }
}
