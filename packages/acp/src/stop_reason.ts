import type { TurnStopReason } from '@lich/agent';
import type { StopReason } from './acp_sdk.js';

/**
 * The ACP stop reason of a turn, the one place Lich's words (`StopReason`) become ACP's: `final`
 * → `end_turn`, `max_turns` and `budget` (a spending limit) → `max_turn_requests`, `aborted` →
 * `cancelled`, `refusal` → `refusal`. A turn that ended in `error` has none: the prompt request
 * fails with the error.
 */
export function acp_stop_reason(reason: TurnStopReason): StopReason | undefined {
  switch (reason) {
    case 'final':
      return 'end_turn';
    case 'max_turns':
    case 'budget':
      return 'max_turn_requests';
    case 'aborted':
      return 'cancelled';
    case 'refusal':
      return 'refusal';
    default:
      return undefined;
  }
}
