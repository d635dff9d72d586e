import { NOTHING_TO_COMPRESS } from '@lich/core';
import type { Agent } from '../agent.js';
import type { CommandContext } from './command_registry.js';
import type { LiveSession } from './live_session.js';
import type { CommandResult, SessionHost } from './session_host_types.js';

/** The slash-command context of one live session of a host. */
export function host_command_context(
  host: SessionHost,
  agent: Agent,
  live: LiveSession,
  on_warning: (text: string) => void,
): CommandContext {
  return {
    session_id: live.id,
    work_dir: agent.config.work_dir,
    host,
    commands: () => host.commands(live.id),
    clear: async () => {
      live.history = [];
      live.touch();
    },
    compact: () => compact_live_session(agent, live, on_warning),
    model: async () => {
      const info = live.info();
      return `${info.provider}/${info.model}`;
    },
    set_model: (model) => host.set_model(live.id, model),
    models: () => host.models(),
    sessions: () => host.list(),
    rewind_points: () => host.rewind_points(live.id),
    rewind: (request) => host.rewind(live.id, request),
  };
}

/** What `/compact` says when the conversation is too short to compact. */
export const NOTHING_TO_COMPACT = 'Nothing to compact yet: the conversation is still short.';

/**
 * `/compact` in a host: the session's history summarised now (not while a run is in flight),
 * recorded as a `compress_end` record and published as a `compaction` event.
 */
export async function compact_live_session(
  agent: Agent,
  live: LiveSession,
  on_warning: (text: string) => void,
): Promise<CommandResult> {
  if (live.busy) return { ok: false, output: 'A run is in flight; /compact after it ends.' };
  const before = live.history;
  const result = await agent.compact(before, {
    ...(live.model_spec === undefined ? {} : { model: live.model_spec }),
  });
  if (!result.ok && result.error === NOTHING_TO_COMPRESS) {
    // nothing went wrong: one neutral line, no failed compaction
    return { ok: true, output: NOTHING_TO_COMPACT };
  }
  if (!result.ok) {
    live.publish('compaction', {
      turn_id: '',
      ok: false,
      before_count: before.length,
      after_count: before.length,
      error: result.error,
    });
    return { ok: false, output: `Nothing was compacted: ${result.error}` };
  }
  live.history = result.messages;
  live.handle
    ?.append({
      type: 'compress_end',
      run: live.handle.state.runs,
      ok: true,
      before_count: before.length,
      after_count: result.messages.length,
      from: result.from,
      to: result.to,
      replaced: result.to - result.from,
      summary: result.summary,
      summary_message: result.summary_message,
      ...(result.usage === undefined ? {} : { usage: result.usage }),
    })
    .catch((error: unknown) =>
      on_warning(`session ${live.id}: the compaction was not recorded: ${String(error)}`),
    );
  live.publish('compaction', {
    turn_id: '',
    ok: true,
    before_count: before.length,
    after_count: result.messages.length,
  });
  return {
    ok: true,
    output: `Compacted ${before.length} messages into ${result.messages.length}.`,
  };
}
