import type { CheckpointStore } from '@lich/checkpoints';
import { rewind_session } from '../checkpoints/rewind_session.js';
import type { RewindOutcome, RewindRequest } from '../checkpoints/rewind_types.js';
import type { LiveSession } from './live_session.js';
import { SessionHostError } from './session_host_error.js';

/**
 * Rewinds a live session (`SessionHost.rewind`): refused while a run is in flight or queued, and
 * for a session that is not recorded; a rewound one forgets its last run (the next prompt is no
 * retry of it) and tells its subscribers with `session.rewound`.
 *
 * Contract: rejects with a `SessionHostError` (`busy`, `unavailable`) or what `rewind_session`
 * rejects with.
 */
export async function rewind_live(
  live: LiveSession,
  store: CheckpointStore | null,
  request: RewindRequest,
): Promise<RewindOutcome> {
  if (live.busy || live.queued > 0) {
    throw new SessionHostError(
      'busy',
      'a run is in flight: rewind when it has ended (or abort it)',
    );
  }
  if (live.handle === null) {
    throw new SessionHostError(
      'unavailable',
      'this session is not recorded, so it cannot be rewound',
    );
  }
  const outcome = await rewind_session(
    {
      store,
      handle: live.handle,
      set_history: (history) => {
        live.history = history;
      },
    },
    request,
  );
  if (outcome.status === 'rewound') {
    live.forget_last_run();
    live.publish('session.rewound', outcome);
    live.touch();
  }
  return outcome;
}
