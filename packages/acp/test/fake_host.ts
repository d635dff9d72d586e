/**
 * A scriptable `SessionHost` for the ACP tests: each prompt runs a script that emits host events,
 * asks permissions and waits on aborts the way the real host does.
 */
import type {
  ApprovalMode,
  CommandInfo,
  HostEvent,
  HostEventPayloads,
  HostEventType,
  PermissionOption,
  SessionHost,
  SessionInfo,
  Subscription,
  TurnStopReason,
} from '@lich/agent';
import { PERMISSION_OPTIONS, SessionHostError } from '@lich/agent';
import type { ImagePart, Message } from '@lich/core';

/** What a prompt script can do. */
export interface TurnScript {
  session_id: string;
  turn_id: string;
  input: string;
  signal: AbortSignal;
  emit<K extends HostEventType>(type: K, payload: Omit<HostEventPayloads[K], 'turn_id'>): void;
  /** Emits `permission.request` and resolves with the answer (`cancelled` on abort). */
  ask(tool_call_id: string, tool: string, args: unknown): Promise<PermissionOption | 'cancelled'>;
  /** Resolves when the turn is aborted. */
  aborted(): Promise<void>;
}

/** A script's result: how the turn ends. */
export type ScriptResult = { stop_reason: TurnStopReason; final?: string; error?: string };

interface FakeSession {
  info: SessionInfo;
  history: Message[];
  controller: AbortController | undefined;
}

const ZERO = { input_tokens: 0, output_tokens: 0 };

/** The fake host. `script` runs for each prompt. */
export class FakeHost implements SessionHost {
  readonly epoch = 'fake-epoch';
  readonly work_dir: string;
  script: (turn: TurnScript) => Promise<ScriptResult>;
  readonly sessions = new Map<string, FakeSession>();
  /** Sessions on "disk" that `load` can make live. */
  readonly stored = new Map<string, { info: SessionInfo; history: Message[] }>();
  readonly answers: { request_id: string; option: PermissionOption }[] = [];
  readonly commands_run: { name: string; args: string | undefined }[] = [];
  readonly prompts: string[] = [];
  shut_down = false;
  #listeners = new Map<string, Set<(event: HostEvent) => void>>();
  #seq = new Map<string, number>();
  #pending = new Map<string, (option: PermissionOption | 'cancelled') => void>();
  #next = 0;

  constructor(work_dir: string, script?: (turn: TurnScript) => Promise<ScriptResult>) {
    this.work_dir = work_dir;
    this.script = script ?? (async () => ({ stop_reason: 'final' }));
  }

  #info(session_id: string, title = ''): SessionInfo {
    const now = new Date().toISOString();
    return {
      session_id,
      title,
      path: null,
      work_dir: this.work_dir,
      model: 'fake-model',
      provider: 'openai_compat',
      created: now,
      updated: now,
      live: true,
      busy: false,
      queued: 0,
      approval_mode: 'default',
      usage_total: { ...ZERO },
    };
  }

  #session(session_id: string): FakeSession {
    const session = this.sessions.get(session_id);
    if (!session) throw new SessionHostError('unknown_session', `no session ${session_id}`);
    return session;
  }

  #emit<K extends HostEventType>(session_id: string, type: K, payload: HostEventPayloads[K]): void {
    const seq = (this.#seq.get(session_id) ?? 0) + 1;
    this.#seq.set(session_id, seq);
    const event = { session_id, epoch: this.epoch, seq, type, payload } as HostEvent;
    for (const listener of this.#listeners.get(session_id) ?? []) listener(event);
  }

  async create(): Promise<SessionInfo> {
    this.#next += 1;
    const id = `s${this.#next}`;
    const info = this.#info(id);
    this.sessions.set(id, { info, history: [], controller: undefined });
    return { ...info };
  }

  async load(session_id: string): Promise<SessionInfo> {
    const live = this.sessions.get(session_id);
    if (live) return { ...live.info };
    const stored = this.stored.get(session_id);
    if (!stored) throw new SessionHostError('unknown_session', `no session ${session_id}`);
    this.sessions.set(session_id, {
      info: { ...stored.info },
      history: [...stored.history],
      controller: undefined,
    });
    return { ...stored.info };
  }

  async list(): Promise<SessionInfo[]> {
    const infos = new Map<string, SessionInfo>();
    for (const [id, stored] of this.stored) infos.set(id, { ...stored.info, live: false });
    for (const [id, session] of this.sessions) infos.set(id, { ...session.info });
    return [...infos.values()];
  }

  async get(session_id: string): Promise<SessionInfo> {
    return { ...this.#session(session_id).info };
  }

  async history(session_id: string): Promise<Message[]> {
    return [...this.#session(session_id).history];
  }

  async close(session_id: string): Promise<void> {
    const session = this.#session(session_id);
    session.controller?.abort();
    this.sessions.delete(session_id);
  }

  async delete(session_id: string): Promise<void> {
    await this.close(session_id);
    this.stored.delete(session_id);
  }

  async set_title(session_id: string, title: string): Promise<void> {
    const session = this.#session(session_id);
    session.info.title = title;
    this.#emit(session_id, 'session.info', { ...session.info });
  }

  async prompt(session_id: string, input: string): Promise<{ turn_id: string; queued: boolean }> {
    const session = this.#session(session_id);
    this.prompts.push(input);
    this.#next += 1;
    const turn_id = `t${this.#next}`;
    const controller = new AbortController();
    session.controller = controller;
    const { signal } = controller;
    const turn: TurnScript = {
      session_id,
      turn_id,
      input,
      signal,
      emit: (type, payload) =>
        this.#emit(session_id, type, { ...payload, turn_id } as HostEventPayloads[typeof type]),
      ask: (tool_call_id, tool, args) => {
        this.#next += 1;
        const request_id = `p${this.#next}`;
        const answered = new Promise<PermissionOption | 'cancelled'>((resolve) => {
          this.#pending.set(request_id, resolve);
          signal.addEventListener('abort', () => {
            if (this.#pending.delete(request_id)) {
              this.#emit(session_id, 'permission.resolved', {
                turn_id,
                request_id,
                option: 'cancelled',
              });
              resolve('cancelled');
            }
          });
        });
        this.#emit(session_id, 'permission.request', {
          turn_id,
          request_id,
          tool_call_id,
          tool,
          args,
          title: `${tool}: ${JSON.stringify(args)}`,
          options: PERMISSION_OPTIONS,
        });
        return answered;
      },
      aborted: () =>
        new Promise((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener('abort', () => resolve(), { once: true });
        }),
    };
    setImmediate(async () => {
      this.#emit(session_id, 'turn.started', { turn_id, input, kind: 'prompt' });
      let result: ScriptResult;
      try {
        result = await this.script(turn);
      } catch (error) {
        result = {
          stop_reason: 'error',
          error: error instanceof Error ? error.message : String(error),
        };
      }
      if (signal.aborted) result = { stop_reason: 'aborted' };
      session.history.push({ role: 'user', content: input });
      if (result.final) session.history.push({ role: 'assistant', content: result.final });
      session.controller = undefined;
      this.#emit(session_id, 'turn.completed', {
        turn_id,
        stop_reason: result.stop_reason,
        usage: { ...ZERO },
        final: result.final ?? null,
        turns_used: 1,
        ...(result.error === undefined ? {} : { error: result.error }),
      });
    });
    return { turn_id, queued: false };
  }

  async interrupt(
    session_id: string,
  ): Promise<{ aborted: boolean; queued: string[]; queued_images: ImagePart[][] }> {
    return { aborted: await this.abort(session_id), queued: [], queued_images: [] };
  }

  async abort(session_id: string): Promise<boolean> {
    const session = this.#session(session_id);
    if (!session.controller) return false;
    session.controller.abort();
    return true;
  }

  async steer(): Promise<void> {}

  async follow_up(session_id: string, text: string) {
    return this.prompt(session_id, text);
  }

  async subscribe(session_id: string, listener: (event: HostEvent) => void): Promise<Subscription> {
    this.#session(session_id);
    let set = this.#listeners.get(session_id);
    if (!set) {
      set = new Set();
      this.#listeners.set(session_id, set);
    }
    set.add(listener);
    return {
      replayed: 0,
      truncated: false,
      unsubscribe: () => set?.delete(listener),
    };
  }

  async respond_permission(request_id: string, option: PermissionOption): Promise<boolean> {
    const resolve = this.#pending.get(request_id);
    if (!resolve) return false;
    this.#pending.delete(request_id);
    this.answers.push({ request_id, option });
    resolve(option);
    return true;
  }

  async set_approval_mode(session_id: string, mode: ApprovalMode): Promise<void> {
    const session = this.#session(session_id);
    session.info.approval_mode = mode;
    this.#emit(session_id, 'session.info', { ...session.info });
  }

  async set_model(session_id: string, model: string): Promise<void> {
    const session = this.#session(session_id);
    const [provider, name] = model.includes('/')
      ? model.split('/', 2)
      : [session.info.provider, model];
    if (!this.models().some((entry) => entry.model === name && entry.provider === provider)) {
      throw new SessionHostError('invalid_argument', `no model ${model}`);
    }
    session.info.provider = provider ?? session.info.provider;
    session.info.model = name ?? session.info.model;
    this.#emit(session_id, 'session.info', { ...session.info });
  }

  commands(): CommandInfo[] {
    return [
      { name: 'clear', description: 'Start the conversation over' },
      { name: 'model', description: 'Switch the model', argument_hint: '<model>' },
    ];
  }

  async run_command(session_id: string, name: string, args?: string) {
    this.#session(session_id);
    this.commands_run.push({ name, args });
    return { ok: true, output: `ran /${name}${args ? ` ${args}` : ''}` };
  }

  models() {
    return [
      { provider: 'openai_compat', model: 'fake-model', default: true },
      { provider: 'anthropic', model: 'other-model', default: false },
    ];
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
    return [{ name: 'read_file', description: 'Read a file' }];
  }

  async idle(): Promise<void> {}

  async shutdown(): Promise<void> {
    this.shut_down = true;
    for (const session of this.sessions.values()) session.controller?.abort();
  }
}
