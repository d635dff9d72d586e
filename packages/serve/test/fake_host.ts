import { randomUUID } from 'node:crypto';
import {
  type HostEvent,
  type HostEventPayloads,
  type HostEventType,
  PERMISSION_OPTIONS,
  type PermissionOption,
  type SessionHost,
  SessionHostError,
  type SessionInfo,
  type Subscription,
  type TurnTicket,
} from '@lich/agent';
import type { ImagePart, Message } from '@lich/core';

/** What one scripted turn does, in order. */
export type FakeStep =
  | { kind: 'delta'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'tool'; name: string; args: unknown; ask?: boolean }
  | { kind: 'wait'; ms: number }
  /** Waits until the test calls `release()`. */
  | { kind: 'gate' };

interface FakeSession {
  info: SessionInfo;
  seq: number;
  ring: HostEvent[];
  listeners: Set<(event: HostEvent) => void>;
  queue: {
    turn_id: string;
    input: string;
    kind: 'prompt' | 'follow_up';
    client_request_id?: string;
  }[];
  running: { turn_id: string; aborted: boolean } | null;
  history: Message[];
}

/**
 * A small in-memory `SessionHost` for the protocol tests: events with seq and a bounded ring,
 * a queue, abort, permission requests. Each prompt runs `script(input)` (default: one delta with
 * `echo: <input>`).
 */
export class FakeHost implements SessionHost {
  readonly epoch = randomUUID();
  readonly sessions = new Map<string, FakeSession>();
  readonly ring_size: number;
  script: (input: string) => FakeStep[] = (input) => [{ kind: 'delta', text: `echo: ${input}` }];
  readonly prompts: string[] = [];
  readonly #permissions = new Map<string, (option: PermissionOption | 'cancelled') => void>();
  #gates: (() => void)[] = [];

  constructor(options: { ring_size?: number } = {}) {
    this.ring_size = options.ring_size ?? 512;
  }

  /** Opens every `gate` step waiting now. */
  release(): void {
    const gates = this.#gates;
    this.#gates = [];
    for (const gate of gates) gate();
  }

  #session(session_id: string): FakeSession {
    const session = this.sessions.get(session_id);
    if (session === undefined) {
      throw new SessionHostError('unknown_session', `no session '${session_id}'`);
    }
    return session;
  }

  emit<K extends HostEventType>(session_id: string, type: K, payload: HostEventPayloads[K]): void {
    const session = this.#session(session_id);
    session.seq += 1;
    const event = { session_id, epoch: this.epoch, seq: session.seq, type, payload } as HostEvent;
    session.ring.push(event);
    if (session.ring.length > this.ring_size) session.ring.shift();
    for (const listener of session.listeners) listener(event);
  }

  async create(options: { title?: string } = {}): Promise<SessionInfo> {
    const now = new Date().toISOString();
    const info: SessionInfo = {
      session_id: randomUUID(),
      title: options.title ?? '',
      path: null,
      work_dir: '/tmp',
      model: 'fake-model',
      provider: 'fake',
      created: now,
      updated: now,
      live: true,
      busy: false,
      queued: 0,
      approval_mode: 'default',
      usage_total: { input_tokens: 0, output_tokens: 0 },
    };
    this.sessions.set(info.session_id, {
      info,
      seq: 0,
      ring: [],
      listeners: new Set(),
      queue: [],
      running: null,
      history: [],
    });
    return { ...info };
  }

  async load(session_id: string): Promise<SessionInfo> {
    return this.get(session_id);
  }

  async list(): Promise<SessionInfo[]> {
    return [...this.sessions.values()].map((session) => ({ ...session.info }));
  }

  async get(session_id: string): Promise<SessionInfo> {
    const session = this.#session(session_id);
    return { ...session.info, busy: session.running !== null, queued: session.queue.length };
  }

  async history(session_id: string): Promise<Message[]> {
    return [...this.#session(session_id).history];
  }

  async close(session_id: string): Promise<void> {
    this.#session(session_id);
    await this.abort(session_id);
    this.sessions.delete(session_id);
  }

  async delete(session_id: string): Promise<void> {
    await this.close(session_id);
  }

  async set_title(session_id: string, title: string): Promise<void> {
    this.#session(session_id).info.title = title;
    this.emit(session_id, 'session.info', await this.get(session_id));
  }

  async prompt(
    session_id: string,
    input: string,
    options: { client_request_id?: string } = {},
  ): Promise<TurnTicket> {
    const session = this.#session(session_id);
    this.prompts.push(input);
    const turn_id = randomUUID();
    session.queue.push({ turn_id, input, kind: 'prompt', ...options });
    const queued = session.running !== null;
    if (!queued) void this.#drain(session_id);
    return { turn_id, queued };
  }

  async #drain(session_id: string): Promise<void> {
    const session = this.sessions.get(session_id);
    if (session === undefined || session.running !== null) return;
    const next = session.queue.shift();
    if (next === undefined) return;
    const running = { turn_id: next.turn_id, aborted: false };
    session.running = running;
    const { turn_id } = next;
    this.emit(session_id, 'turn.started', {
      turn_id,
      input: next.input,
      kind: next.kind,
      ...(next.client_request_id === undefined
        ? {}
        : { client_request_id: next.client_request_id }),
    });
    session.history.push({ role: 'user', content: next.input });
    let text = '';
    for (const step of this.script(next.input)) {
      if (running.aborted) break;
      if (step.kind === 'delta') {
        text += step.text;
        this.emit(session_id, 'message.delta', { turn_id, text: step.text });
      } else if (step.kind === 'reasoning') {
        this.emit(session_id, 'reasoning.delta', { turn_id, text: step.text });
      } else if (step.kind === 'wait') {
        await new Promise((resolve) => setTimeout(resolve, step.ms));
      } else if (step.kind === 'gate') {
        await new Promise<void>((resolve) => this.#gates.push(resolve));
      } else {
        const tool_call_id = randomUUID();
        if (step.ask) {
          const request_id = randomUUID();
          const answer = new Promise<PermissionOption | 'cancelled'>((resolve) =>
            this.#permissions.set(request_id, resolve),
          );
          this.emit(session_id, 'permission.request', {
            turn_id,
            request_id,
            tool_call_id,
            tool: step.name,
            args: step.args,
            title: `${step.name}: ${JSON.stringify(step.args)}`,
            options: PERMISSION_OPTIONS,
          });
          const option = await answer;
          this.emit(session_id, 'permission.resolved', { turn_id, request_id, option });
          if (option !== 'allow_once' && option !== 'allow_always') continue;
        }
        this.emit(session_id, 'tool.start', {
          turn_id,
          tool_call_id,
          name: step.name,
          args: step.args,
        });
        this.emit(session_id, 'tool.end', {
          turn_id,
          tool_call_id,
          name: step.name,
          ok: true,
          output: 'done',
          duration_ms: 1,
        });
      }
    }
    session.history.push({ role: 'assistant', content: text });
    session.running = null;
    this.emit(session_id, 'turn.completed', {
      turn_id,
      stop_reason: running.aborted ? 'aborted' : 'final',
      usage: { input_tokens: 1, output_tokens: 1 },
      final: running.aborted ? null : text,
      turns_used: 1,
    });
    void this.#drain(session_id);
  }

  async interrupt(
    session_id: string,
  ): Promise<{ aborted: boolean; queued: string[]; queued_images: ImagePart[][] }> {
    return { aborted: await this.abort(session_id), queued: [], queued_images: [] };
  }

  async abort(session_id: string): Promise<boolean> {
    const session = this.#session(session_id);
    if (session.running === null) return false;
    session.running.aborted = true;
    for (const [request_id, resolve] of this.#permissions) {
      this.#permissions.delete(request_id);
      resolve('cancelled');
    }
    this.release();
    return true;
  }

  async steer(session_id: string, text: string): Promise<void> {
    const session = this.#session(session_id);
    if (session.running === null) {
      await this.prompt(session_id, text);
      return;
    }
    this.emit(session_id, 'message.steered', { turn_id: session.running.turn_id, text });
  }

  async follow_up(session_id: string, text: string): Promise<TurnTicket> {
    return this.prompt(session_id, text);
  }

  async subscribe(
    session_id: string,
    listener: (event: HostEvent) => void,
    options: { after_seq?: number; epoch?: string } = {},
  ): Promise<Subscription> {
    const session = this.#session(session_id);
    let replayed = 0;
    let truncated = false;
    if (options.after_seq !== undefined) {
      const oldest = session.ring[0]?.seq ?? session.seq + 1;
      if (
        (options.epoch !== undefined && options.epoch !== this.epoch) ||
        options.after_seq + 1 < oldest
      ) {
        truncated = true;
      } else {
        for (const event of session.ring) {
          if (event.seq > options.after_seq) {
            listener(event);
            replayed += 1;
          }
        }
      }
    }
    session.listeners.add(listener);
    return {
      replayed,
      truncated,
      unsubscribe: () => {
        session.listeners.delete(listener);
      },
    };
  }

  async respond_permission(request_id: string, option: PermissionOption): Promise<boolean> {
    const resolve = this.#permissions.get(request_id);
    if (resolve === undefined) return false;
    this.#permissions.delete(request_id);
    resolve(option);
    return true;
  }

  async set_approval_mode(session_id: string, mode: SessionInfo['approval_mode']): Promise<void> {
    this.#session(session_id).info.approval_mode = mode;
  }

  async set_model(session_id: string, model: string): Promise<void> {
    this.#session(session_id).info.model = model;
  }

  commands() {
    return [{ name: 'clear', description: 'start over' }];
  }

  async run_command(session_id: string, name: string) {
    this.#session(session_id);
    return { ok: name === 'clear', output: name === 'clear' ? 'cleared' : `no command /${name}` };
  }

  models() {
    return [{ provider: 'fake', model: 'fake-model', default: true }];
  }

  async rewind_points() {
    return [];
  }

  async rewind(): Promise<never> {
    throw Object.assign(new Error('the fake host keeps no checkpoints'), {
      name: 'SessionHostError',
      code: 'unavailable',
    });
  }

  tools() {
    return [{ name: 'read_file', description: 'reads a file' }];
  }

  async idle(session_id: string): Promise<void> {
    const session = this.#session(session_id);
    while (session.running !== null || session.queue.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  async shutdown(): Promise<void> {
    for (const session_id of this.sessions.keys()) await this.abort(session_id);
  }
}
