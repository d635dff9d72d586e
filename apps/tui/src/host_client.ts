/**
 * The in-process client: the TUI and the agent in one process, over a `SessionHost`.
 */
import type { SessionHost } from '@lich/agent';
import type { TuiClient } from './client.js';

/**
 * A `TuiClient` over `host`. The TUI's subscription can approve permission requests.
 * `close` shuts the host down (runs in flight are aborted after `deadline_ms`, 2 s by default).
 */
export function create_host_client(
  host: SessionHost,
  options: { deadline_ms?: number } = {},
): TuiClient {
  let closed: Promise<void> | null = null;
  return {
    get epoch() {
      return host.epoch;
    },
    mode: 'local',
    create: (create_options) => host.create(create_options),
    load: (session_id) => host.load(session_id),
    list: () => host.list(),
    get: (session_id) => host.get(session_id),
    history: (session_id) => host.history(session_id),
    prompt: (session_id, input, prompt_options) => host.prompt(session_id, input, prompt_options),
    follow_up: (session_id, text, options) => host.follow_up(session_id, text, options),
    steer: (session_id, text) => host.steer(session_id, text),
    abort: (session_id) => host.abort(session_id),
    interrupt: (session_id) => host.interrupt(session_id),
    subscribe: (session_id, listener, subscribe_options) =>
      host.subscribe(session_id, listener, { can_approve: true, ...subscribe_options }),
    respond_permission: (request_id, option, note) =>
      host.respond_permission(request_id, option, note === undefined ? {} : { note }),
    set_approval_mode: (session_id, mode) => host.set_approval_mode(session_id, mode),
    commands: async (session_id) => host.commands(session_id),
    run_command: (session_id, name, args) => host.run_command(session_id, name, args),
    rewind_points: (session_id) => host.rewind_points(session_id),
    rewind: (session_id, request) => host.rewind(session_id, request),
    on_connection: () => () => undefined,
    close() {
      closed ??= host.shutdown({ deadline_ms: options.deadline_ms ?? 2000 });
      return closed;
    },
  };
}
