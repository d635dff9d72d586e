import type { Message, Usage } from '@lich/core';
import {
  is_retry_of,
  type LastRun,
  one_line,
  type SessionHandle,
  TITLE_LIMIT,
} from '@lich/session';
import type { Agent } from '../agent.js';
import { SUBAGENT_EVENTS_FIELD, type SubagentEvent } from '../toolbox/subagent_runner.js';
import type { EventRing } from './event_ring.js';
import { map_agent_event, map_router_event } from './host_event_mapper.js';
import {
  type EnqueueOptions,
  new_turn_id,
  type QueuedTurn,
  type TakenBack,
} from './queued_turn.js';
import { SessionEventStream } from './session_event_stream.js';
import type {
  ApprovalMode,
  HostEvent,
  HostEventPayloads,
  HostEventType,
  SessionInfo,
  SubscribeOptions,
  Subscription,
  TurnStopReason,
  TurnTicket,
} from './session_host_types.js';
import { trim_history } from './trim_history.js';
import { turn_sink } from './turn_sink.js';
import { TurnWatch } from './turn_watch.js';

/** What a live session starts from. */
export interface LiveSessionInit {
  id: string;
  epoch: string;
  agent: Agent;
  /** Where its runs are recorded; null when they are not. */
  handle: SessionHandle | null;
  history: Message[];
  title: string;
  created: string;
  approval_mode: ApprovalMode;
  usage_total: Usage;
  /** The session's cost so far in dollars (null: unknown); default 0. */
  cost_total_usd?: number | null;
  ring_events?: number;
  ring_bytes?: number;
  coalesce_ms: number;
  now: () => Date;
  /** Hears warnings (a record that could not be written) besides the session's `error` event. */
  on_warning: (text: string) => void;
  /** Seed each run with at most this many messages of the history (`trim_history`). */
  history_limit?: number;
  /** Each run may retry a stream cut mid-answer from the start (`SessionHostOptions`). */
  restartable_stream?: boolean;
  /** Extra tool context of every run (the permission gate). */
  tool_context?: (session: LiveSession, turn_id: string) => Record<string, unknown>;
  /**
   * The session's last run as loaded (`before_last_run`). When the first run of this live
   * session retries it (`is_retry_of`: the same request id, or the same input of a run whose
   * process died), it runs from the history before it, so that attempt is replaced, not repeated.
   */
  last_run?: LastRun | null;
}

/** Hands `value` to an observer's listener, which may be absent or throw. */
function heard<T>(listener: ((value: T) => void) | undefined, value: T): void {
  try {
    listener?.(value);
  } catch {
    // an observer never breaks the run
  }
}

/**
 * One session held by a `SessionHost`: its history, its session file, at most one run in flight,
 * the queue of prompts and follow-ups behind it, steering text for the run, and its event stream
 * (`SessionEventStream`: seq, ring, coalesced deltas, subscribers).
 *
 * Contract: `publish` gives each event the next seq, keeps it in the ring and hands it to every
 * listener synchronously (a throwing listener is ignored); pending deltas always go out before
 * the next other event; runs start in queue order, one at a time, and every run ends with one
 * `turn.completed`.
 */
export class LiveSession {
  readonly id: string;
  readonly epoch: string;
  readonly agent: Agent;
  readonly handle: SessionHandle | null;
  readonly created: string;
  history: Message[];
  title: string;
  approval_mode: ApprovalMode;
  /** The model asked for with `set_model` (`model` or `provider/model`); absent: the chain's. */
  model_spec: string | undefined;
  /**
   * The model a custom command just ran asked for, with the prompt it made: the next prompt of
   * exactly that text runs on it (see `CommandResult.model`); any prompt clears it.
   */
  command_model: { prompt: string; model: string } | undefined;
  usage_total: Usage;
  /** How commands run here (see `SessionInfo.sandbox`), once the host knows. */
  sandbox: string | undefined;
  /** The session's cost so far in dollars; null once a call had no known price. */
  cost_total_usd: number | null;
  updated: string;
  closed = false;
  readonly #init: LiveSessionInit;
  readonly #events: SessionEventStream;
  #queue: QueuedTurn[] = [];
  #steering: string[] = [];
  #run: { turn_id: string; controller: AbortController; done: Promise<void> } | null = null;
  #idle_waiters: (() => void)[] = [];
  #last_run: LastRun | null;

  constructor(init: LiveSessionInit) {
    this.#init = init;
    this.#last_run = init.last_run ?? null;
    this.id = init.id;
    this.epoch = init.epoch;
    this.agent = init.agent;
    this.handle = init.handle;
    this.created = init.created;
    this.history = init.history;
    this.title = init.title;
    this.approval_mode = init.approval_mode;
    this.usage_total = init.usage_total;
    this.cost_total_usd = init.cost_total_usd === undefined ? 0 : init.cost_total_usd;
    this.updated = init.now().toISOString();
    this.model_spec = undefined;
    this.command_model = undefined;
    this.#events = new SessionEventStream({
      session_id: init.id,
      epoch: init.epoch,
      ...(init.ring_events === undefined ? {} : { ring_events: init.ring_events }),
      ...(init.ring_bytes === undefined ? {} : { ring_bytes: init.ring_bytes }),
      coalesce_ms: init.coalesce_ms,
    });
  }

  get busy(): boolean {
    return this.#run !== null;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** The id of the run in flight, if any. */
  get current_turn(): string | undefined {
    return this.#run?.turn_id;
  }

  /** How many subscribers answer permission requests. */
  get approvers(): number {
    return this.#events.approvers;
  }

  /** The events held for replay. */
  get ring(): EventRing {
    return this.#events.ring;
  }

  info(): SessionInfo {
    const chain = this.agent.resolve_model(this.model_spec) ?? this.agent.config.providers;
    const first = chain[0];
    return {
      session_id: this.id,
      title: this.title,
      path: this.handle?.path ?? null,
      work_dir: this.agent.config.work_dir,
      model: first?.model ?? this.handle?.state.start?.model ?? 'unknown',
      provider: first?.kind ?? 'unknown',
      created: this.created,
      updated: this.updated,
      live: !this.closed,
      busy: this.busy,
      queued: this.queued,
      approval_mode: this.approval_mode,
      usage_total: { ...this.usage_total },
      ...(this.sandbox === undefined ? {} : { sandbox: this.sandbox }),
      ...(this.handle?.state.start?.parent_session_id === undefined
        ? {}
        : { parent_session_id: this.handle.state.start.parent_session_id }),
    };
  }

  /** Sends pending deltas, then `type` as the session's next event. */
  publish<K extends HostEventType>(type: K, payload: HostEventPayloads[K]): void {
    this.#events.publish(type, payload);
  }

  /** Publishes `session.info` after a change of the session's facts. */
  touch(): void {
    this.updated = this.#init.now().toISOString();
    this.publish('session.info', this.info());
  }

  /** Replays what the subscriber missed (or says truncated), then delivers live. Synchronous. */
  subscribe(listener: (event: HostEvent) => void, options: SubscribeOptions = {}): Subscription {
    return this.#events.subscribe(listener, options);
  }

  /** Queues a run; starts it at once when the session is free. */
  enqueue(input: string, kind: 'prompt' | 'follow_up', options: EnqueueOptions = {}): TurnTicket {
    const { client_request_id, budget_scopes, images, mentioned, model, typed, observer } = options;
    const turn: QueuedTurn = {
      turn_id: new_turn_id(),
      input,
      kind,
      ...(client_request_id === undefined ? {} : { client_request_id }),
      ...(budget_scopes === undefined ? {} : { budget_scopes }),
      ...(model === undefined ? {} : { model }),
      ...(images === undefined || images.length === 0 ? {} : { images }),
      ...(mentioned === undefined || mentioned.length === 0 ? {} : { mentioned }),
      ...(typed === undefined || typed === input ? {} : { typed }),
      ...(observer === undefined ? {} : { observer }),
    };
    const queued = this.busy || this.#queue.length > 0;
    this.#queue.push(turn);
    if (this.title === '') this.title = one_line(typed ?? input, TITLE_LIMIT);
    if (queued) this.touch();
    else this.#start_next();
    return { turn_id: turn.turn_id, queued };
  }

  /** Puts text into the run in flight (before its next model call), or prompts with it. */
  steer(text: string): void {
    if (this.busy) this.#steering.push(text);
    else this.enqueue(text, 'prompt');
  }

  /** Aborts the run in flight; false when none. */
  abort(): boolean {
    if (this.#run === null) return false;
    this.#run.controller.abort(new Error('aborted by the session host'));
    return true;
  }

  /** Resolves once no run is in flight and nothing is queued. */
  idle(): Promise<void> {
    if (!this.busy && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle_waiters.push(resolve));
  }

  /**
   * Takes back what waits: the queued prompts and follow-ups and the steering text, oldest first,
   * each with the pictures sent with it, so nothing starts by itself after an interrupt.
   */
  take_queued(): TakenBack[] {
    const taken: TakenBack[] = [
      ...this.#steering.map((text) => ({ text, images: [] })),
      // what the person typed: `@notes.md`, not the file it brought in
      ...this.#queue.map((turn) => ({ text: turn.typed ?? turn.input, images: turn.images ?? [] })),
    ];
    this.drop_queue();
    if (taken.length > 0) this.touch();
    return taken;
  }

  /**
   * Forgets the last run as loaded: after a rewind, the next prompt is no retry of it, whatever
   * its input.
   */
  forget_last_run(): void {
    this.#last_run = null;
  }

  /** Empties the queue and the steering text. */
  drop_queue(): void {
    this.#queue = [];
    this.#steering = [];
  }

  /** Aborts the run, drops the queue, waits for the run to end and releases the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.drop_queue();
    this.abort();
    await this.#run?.done;
    this.closed = true;
    this.#events.flush_and_stop();
    this.touch();
    this.#events.drop_listeners();
    await this.handle?.close();
    this.#wake_idle();
  }

  #wake_idle(): void {
    const waiters = this.#idle_waiters.splice(0);
    for (const wake of waiters) wake();
  }

  #start_next(): void {
    if (this.#run !== null) return;
    const turn = this.closed ? undefined : this.#queue.shift();
    if (turn === undefined) {
      this.#wake_idle();
      return;
    }
    const controller = new AbortController();
    const run = { turn_id: turn.turn_id, controller, done: Promise.resolve() };
    this.#run = run;
    run.done = this.#execute(turn, controller.signal).finally(() => {
      this.#run = null;
      if (!this.closed) this.touch();
      this.#start_next();
    });
  }

  async #execute(turn: QueuedTurn, signal: AbortSignal): Promise<void> {
    const { turn_id } = turn;
    this.publish('turn.started', {
      turn_id,
      input: turn.input,
      kind: turn.kind,
      ...(turn.client_request_id === undefined
        ? {}
        : { client_request_id: turn.client_request_id }),
    });
    this.touch();
    const seen = new TurnWatch();
    const observer = turn.observer ?? {};
    const sink = turn_sink(this, turn_id, seen, (kind, text) =>
      this.#events.delta(kind, turn_id, text),
    );
    let stop_reason: TurnStopReason;
    let final: string | null = null;
    let turns_used = 0;
    let error: string | undefined;
    let hints: string[] = [];
    const last_run = this.#last_run;
    this.#last_run = null;
    if (last_run !== null && is_retry_of(last_run, turn.input, turn.client_request_id)) {
      this.history = [...last_run.history]; // the retry replaces the earlier attempt
    }
    if (this.#init.history_limit !== undefined) {
      this.history = [...trim_history(this.history, this.#init.history_limit)];
    }
    try {
      const result = await this.agent.run({
        input: turn.input,
        ...(turn.images === undefined && turn.mentioned === undefined
          ? {}
          : { images: [...(turn.images ?? []), ...(turn.mentioned ?? [])] }),
        history: this.history,
        signal,
        session: this.handle ?? false,
        ...(this.#init.restartable_stream === true ? { restartable_stream: true } : {}),
        ...(turn.client_request_id === undefined ? {} : { request_id: turn.client_request_id }),
        ...(turn.budget_scopes === undefined ? {} : { budget_scopes: turn.budget_scopes }),
        on_event: (event) => {
          seen.hear(event);
          heard(observer.on_event, event);
          if (event.type === 'tool_call_end') this.#learn_sandbox(event.result.sandbox);
          map_agent_event(event, sink);
        },
        take_steering: () => this.#take_steering(),
        ...((turn.model ?? this.model_spec) === undefined
          ? {}
          : { model: turn.model ?? this.model_spec }),
        on_provider_event: (event) => {
          heard(observer.on_provider_event, event);
          map_router_event(event, sink);
        },
        on_warning: (text) => {
          this.#init.on_warning(text);
          this.publish('error', { turn_id, message: text, code: 'session_write' });
        },
        tool_context: {
          ...this.#init.tool_context?.(this, turn_id),
          session_id: this.id,
          turn_id,
          // children show as events of this session, and their usage counts in it: a child's
          // completion holds its own children's, who report at the next depth
          [SUBAGENT_EVENTS_FIELD]: (event: SubagentEvent) => {
            const { type, ...rest } = event;
            if (event.type === 'completed' && event.depth === 1) {
              sink.usage(event.usage, undefined, undefined, undefined, event.cost_usd);
            }
            this.publish(`subagent.${type}`, {
              turn_id,
              ...rest,
            } as never);
          },
        },
        on_checkpoint: (mark) => {
          const prompts = this.handle?.state.prompts ?? [];
          const prompt = prompts.findLastIndex((entry) => entry.run === mark.run) + 1;
          this.publish('checkpoint.created', {
            turn_id,
            checkpoint_id: mark.checkpoint_id,
            kind: mark.kind,
            prompt,
          });
        },
      });
      stop_reason = seen.stop_reason(result.outcome.stopped_reason);
      final = result.outcome.final;
      turns_used = result.outcome.turns_used;
      seen.messages = result.outcome.messages;
    } catch (caught) {
      stop_reason = signal.aborted ? 'aborted' : 'error';
      error = caught instanceof Error ? caught.message : String(caught);
      hints = this.agent.failure_hints(caught);
      heard(observer.on_error, caught);
    }
    if (seen.messages !== null) this.history = [...seen.messages];
    const left = this.#steering.splice(0);
    if (left.length > 0 && !this.closed) {
      // steering that came after the last tool results: it is the next prompt
      this.#queue.unshift({ turn_id: new_turn_id(), input: left.join('\n\n'), kind: 'prompt' });
    }
    this.publish('turn.completed', {
      turn_id,
      stop_reason,
      usage: sink.turn_usage,
      final,
      turns_used,
      ...(stop_reason === 'error' && error !== undefined ? { error } : {}),
      ...(stop_reason === 'error' && hints.length > 0 ? { hints } : {}),
      ...(stop_reason === 'budget' && seen.budget !== undefined ? { budget: seen.budget } : {}),
      ...(stop_reason === 'budget' && seen.budget_scope !== undefined
        ? { budget_scope: seen.budget_scope }
        : {}),
    });
  }

  /** A command ran sandboxed before the look-up told the kind: `session.info` says it now. */
  #learn_sandbox(kind: string | undefined): void {
    if (this.sandbox !== undefined || kind === undefined || kind === 'none') return;
    this.sandbox = kind;
    this.touch();
  }

  #take_steering(): Message[] {
    const texts = this.#steering.splice(0);
    return texts.map((content) => ({ role: 'user', content }));
  }
}
