import type { TurnStopReason } from '@lich/agent';
import type { StopReason } from './acp_sdk.js';

/**
 * The ACP stop reason of a turn: `end_turn`, `max_turns` and `budget` (a spending limit) →
 * `max_turn_requests`, `cancelled`,
 * `refusal`. A turn that ended in `error` has none: the prompt request fails with the error.
 */
export function acp_stop_reason(reason: TurnStopReason): StopReason | undefined {
  switch (reason) {
    case 'end_turn':
      return 'end_turn';
    case 'max_turns':
    case 'budget':
      return 'max_turn_requests';
    case 'cancelled':
      return 'cancelled';
    case 'refusal':
      return 'refusal';
    default:
      return undefined;
  }
}
