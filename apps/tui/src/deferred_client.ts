/**
 * A `TuiClient` whose backend is made only when it is first used: the screen can draw its first
 * frame, with the prompt ready, before the config is read and the agent and its host are built
 * (or the `lich serve --stdio` child has answered). Calls made meanwhile wait for it.
 */
import type { ConnectionState, TuiClient } from './client.js';

/**
 * A client that calls `open` on the first method call (never before) and then forwards every
 * call to what it resolved with.
 *
 * Contract: `open` runs at most once; when it rejects, every call (the pending ones and the later
 * ones) rejects with its error, so the TUI shows it and leaves; `epoch` is `''` until the backend
 * is up; connection listeners registered before then are attached once it is; `close` before
 * `open` ran resolves without opening anything, and after, closes the backend (once).
 */
export function deferred_client(
  open: () => Promise<TuiClient>,
  mode: TuiClient['mode'],
): TuiClient {
  let opened: Promise<TuiClient> | null = null;
  let ready: TuiClient | null = null;
  let closed: Promise<void> | null = null;
  const early_listeners = new Map<(state: ConnectionState) => void, () => void>();

  const client = (): Promise<TuiClient> => {
    opened ??= open().then((value) => {
      ready = value;
      for (const listener of early_listeners.keys()) {
        early_listeners.set(listener, value.on_connection(listener));
      }
      return value;
    });
    return opened;
  };
  const call =
    <K extends keyof TuiClient>(name: K) =>
    async (...args: unknown[]): Promise<unknown> => {
      const target = await client();
      return (target[name] as (...values: unknown[]) => Promise<unknown>)(...args);
    };

  return {
    get epoch() {
      return ready?.epoch ?? '';
    },
    mode,
    create: call('create') as TuiClient['create'],
    load: call('load') as TuiClient['load'],
    list: call('list') as TuiClient['list'],
    get: call('get') as TuiClient['get'],
    history: call('history') as TuiClient['history'],
    prompt: call('prompt') as TuiClient['prompt'],
    follow_up: call('follow_up') as TuiClient['follow_up'],
    steer: call('steer') as TuiClient['steer'],
    abort: call('abort') as TuiClient['abort'],
    interrupt: call('interrupt') as TuiClient['interrupt'],
    subscribe: call('subscribe') as TuiClient['subscribe'],
    respond_permission: call('respond_permission') as TuiClient['respond_permission'],
    set_approval_mode: call('set_approval_mode') as TuiClient['set_approval_mode'],
    commands: call('commands') as TuiClient['commands'],
    run_command: call('run_command') as TuiClient['run_command'],
    rewind_points: call('rewind_points') as TuiClient['rewind_points'],
    rewind: call('rewind') as TuiClient['rewind'],
    on_connection(listener) {
      if (ready !== null) return ready.on_connection(listener);
      early_listeners.set(listener, () => undefined);
      return () => {
        early_listeners.get(listener)?.();
        early_listeners.delete(listener);
      };
    },
    close() {
      closed ??=
        opened === null
          ? Promise.resolve()
          : opened.then(
              (target) => target.close(),
              () => undefined,
            );
      return closed;
    },
  };
}
