import type { Agent, ApprovalMode, Approver, LocalSessionHost, SessionInfo } from '@lich/agent';
import type { CommandContext } from './context.js';
import { resumed_session, say_resumed } from './resumed_session.js';
import { reading_session } from './session_ids.js';

/** How a chat's host and session are opened. */
export interface ChatHostOptions {
  /** The session to go on with, as given (`--resume`, `-c`): an id, a prefix or a file's path. */
  resume?: string;
  /** `--no-session`: nothing is recorded. */
  no_session: boolean;
  /** The command, for usage errors (`chat`, `run`, `sessions`). */
  command: string;
  /** The approval mode of the session. */
  approval_mode: ApprovalMode;
  /** Asks the person (the terminal's one-key question); absent: `ask` means deny. */
  approver?: Approver;
  /** The answer is shown only whole (text into a pipe): a cut stream may be asked again. */
  restartable_stream: boolean;
  /** Look up how commands run as the session opens (`SessionHostOptions.probe_sandbox`). */
  probe_sandbox?: boolean;
}

/** A chat's `SessionHost` and the live session it talks in. */
export interface ChatHost {
  host: LocalSessionHost;
  session: SessionInfo;
}

/**
 * Builds a `SessionHost` over `agent` and opens the chat's session in it: the resumed one (said
 * with its count of messages), a new recorded one, or with `no_session` one recorded nowhere. A
 * session named by the path of a file in another folder is opened from that folder. Rejects with
 * a `UsageError` for a session it cannot find, and with the `lich sessions repair` advice for a
 * damaged file. The host's `shutdown` closes the agent.
 */
export async function open_chat_host(
  context: CommandContext,
  agent: Agent,
  options: ChatHostOptions,
): Promise<ChatHost> {
  const { create_session_host, remember_session_dir, session_dirs_file } = await import(
    '@lich/agent'
  );
  const base = {
    agent,
    approval_mode: options.approval_mode,
    ...(options.approver === undefined ? {} : { approver: options.approver }),
    ...(options.restartable_stream ? { restartable_stream: true } : {}),
    ...(options.probe_sandbox === false ? { probe_sandbox: false } : {}),
    on_warning: (text: string) => context.warn(text),
    // the chat listens from the start: nothing is replayed
    ring_events: 0,
  };
  if (options.resume !== undefined) {
    const { summary, store: storage } = await resumed_session(
      context,
      agent.config,
      options.resume,
      options.command,
    );
    const host = create_session_host({
      ...base,
      storage,
      // the session goes on where it was recorded, whatever folder that was
      scope: summary.work_dir === undefined ? 'all' : { work_dir: summary.work_dir },
    });
    let session: SessionInfo;
    try {
      session = await host.load(summary.id);
    } catch (error) {
      // a damaged file: say how to repair it
      await reading_session(summary, () => storage.read(summary.id));
      throw error;
    }
    const history = await host.history(session.session_id);
    const count = history.filter((message) => message.role !== 'system').length;
    say_resumed(context, summary.id, count);
    return { host, session };
  }
  if (options.no_session) {
    const host = create_session_host({ ...base, storage: false });
    return { host, session: await host.create() };
  }
  const host = create_session_host(base);
  // `lich usage --all` finds this folder's sessions through it
  const registry = session_dirs_file(context.io.env);
  if (registry !== null) await remember_session_dir(registry, agent.config.session_dir);
  return { host, session: await host.create() };
}
