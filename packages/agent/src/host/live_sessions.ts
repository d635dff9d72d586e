import { content_text } from '@lich/core';
import {
  before_last_run,
  conversation_of,
  is_valid_session_id,
  one_line,
  TITLE_LIMIT,
} from '@lich/session';
import type { Agent } from '../agent.js';
import { call_preview } from '../permissions/call_preview.js';
import { PERMISSION_GATE_FIELD } from '../permissions/permission_gate.js';
import type { PermissionRequests } from '../permissions/permission_requests.js';
import { session_permission_gate } from '../permissions/session_permission_gate.js';
import { APPROVAL_MODE_FIELD } from '../toolbox/exit_plan_mode.js';
import { DEFAULT_COALESCE_MS } from './delta_coalescer.js';
import type { HostStorage } from './host_storage.js';
import { LiveSession } from './live_session.js';
import { SessionHostError } from './session_host_error.js';
import type { SessionHostOptions } from './session_host_options.js';
import type { ApprovalMode } from './session_host_types.js';

/** What a new live session needs beyond what the host supplies. */
export type LiveSessionParts = Pick<
  ConstructorParameters<typeof LiveSession>[0],
  | 'id'
  | 'handle'
  | 'history'
  | 'title'
  | 'created'
  | 'approval_mode'
  | 'usage_total'
  | 'cost_total_usd'
  | 'last_run'
>;

/** What the registry is built from: the host's parts. */
export interface LiveSessionsInit {
  epoch: string;
  agent: Agent;
  options: SessionHostOptions;
  storage: HostStorage;
  requests: PermissionRequests;
  warn: (text: string) => void;
  now: () => Date;
  /** The approval mode of a session loaded from storage. */
  default_mode: () => ApprovalMode;
  /** Throws `shutting_down` once the host is shutting down. */
  check_open: () => void;
  /** Resolves once the agent's plugins are loaded (their commands listed); never rejects. */
  plugins_ready: () => Promise<void>;
}

/**
 * The sessions a host holds live, by id: each built with the host's ring, coalescing and history
 * options and a permission gate that asks through the host's requests; a session that is only in
 * storage is loaded on first use, its history rebuilt.
 *
 * Contract: `session` gives the live session or loads it (two loads of one id share one open),
 * throws `unknown_session` for an id that is neither live nor stored, and `shutting_down` (from
 * `check_open`) before loading once the host is shutting down; `add` publishes the new session's
 * `session.info`.
 */
export class LiveSessions {
  readonly #init: LiveSessionsInit;
  readonly #sessions = new Map<string, LiveSession>();
  /** Loads in progress, so two loads of one session share one open. */
  readonly #loading = new Map<string, Promise<LiveSession>>();

  constructor(init: LiveSessionsInit) {
    this.#init = init;
  }

  /** The live session, if it is live. */
  get(session_id: string): LiveSession | undefined {
    return this.#sessions.get(session_id);
  }

  /** Every live session. */
  values(): IterableIterator<LiveSession> {
    return this.#sessions.values();
  }

  /** Forgets a session (it was closed). */
  delete(session_id: string): void {
    this.#sessions.delete(session_id);
  }

  /**
   * Ends every live session: drops their queues, lets the runs in flight finish for up to
   * `deadline_ms`, then closes them all (aborting what still runs) and forgets them.
   */
  async drain(deadline_ms: number): Promise<void> {
    const sessions = [...this.#sessions.values()];
    for (const live of sessions) live.drop_queue();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = Promise.all(sessions.map((live) => live.idle()));
    await Promise.race([
      waited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline_ms));
      }),
    ]);
    clearTimeout(timer);
    await Promise.all(sessions.map((live) => live.close()));
    this.#sessions.clear();
  }

  /** A new live session, held from now on. */
  add(session: LiveSessionParts): LiveSession {
    const { agent, options, requests, warn } = this.#init;
    const live = new LiveSession({
      ...session,
      epoch: this.#init.epoch,
      agent,
      ...(options.ring_events === undefined ? {} : { ring_events: options.ring_events }),
      ...(options.ring_bytes === undefined ? {} : { ring_bytes: options.ring_bytes }),
      coalesce_ms: options.coalesce_ms ?? DEFAULT_COALESCE_MS,
      tool_context: (live, turn_id) => ({
        [PERMISSION_GATE_FIELD]: session_permission_gate({
          policy: agent.permissions,
          mode: () => live.approval_mode,
          approver: () => requests.approver_for(live, turn_id, options.approver),
          remembered: agent.remembered_answers(live.handle),
          handle: live.handle,
          on_warning: warn,
          preview: call_preview(agent.registry, agent.config.work_dir),
          trusted: agent.trusted,
          set_mode: (mode) => {
            live.approval_mode = mode;
            live.touch();
          },
        }),
        [APPROVAL_MODE_FIELD]: () => live.approval_mode,
      }),
      ...(options.history_limit === undefined ? {} : { history_limit: options.history_limit }),
      ...(options.restartable_stream === true ? { restartable_stream: true } : {}),
      now: this.#init.now,
      on_warning: warn,
    });
    this.#sessions.set(live.id, live);
    // how commands will run (C46): in the first `session.info` once known (looked up once per
    // process), else in one more when the look ends; never holds up the start
    live.sandbox = agent.sandbox_kind_now();
    live.touch();
    if (live.sandbox === undefined && options.probe_sandbox !== false) {
      void agent.sandbox_kind().then((kind) => {
        if (live.closed || live.sandbox === kind) return;
        live.sandbox = kind;
        live.touch();
      });
    }
    return live;
  }

  /** The live session, loading it from storage when it is only on disk. */
  async session(session_id: string): Promise<LiveSession> {
    const live = this.#sessions.get(session_id);
    if (live !== undefined) return live;
    this.#init.check_open();
    if (typeof session_id !== 'string' || !is_valid_session_id(session_id)) {
      throw new SessionHostError('unknown_session', `no session '${String(session_id)}'`);
    }
    let loading = this.#loading.get(session_id);
    if (loading === undefined) {
      loading = this.#load(session_id);
      this.#loading.set(session_id, loading);
      void loading.then(
        () => this.#loading.delete(session_id),
        () => this.#loading.delete(session_id),
      );
    }
    return loading;
  }

  async #load(session_id: string): Promise<LiveSession> {
    const handle = await this.#init.storage.open(session_id);
    await this.#init.plugins_ready();
    const state = handle.state;
    const history = await this.#init.storage.load_images(conversation_of(state));
    const first_user = history.find((message) => message.role === 'user');
    return this.add({
      id: session_id,
      handle,
      history,
      title: one_line(state.title ?? content_text(first_user?.content ?? ''), TITLE_LIMIT),
      created: state.start?.created ?? this.#init.now().toISOString(),
      approval_mode: this.#init.default_mode(),
      usage_total: { ...state.usage_total },
      cost_total_usd: state.cost_total_usd,
      last_run: before_last_run(state),
    });
  }
}
