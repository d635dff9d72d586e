import { PassThrough } from 'node:stream';
import type { SessionHost } from '@lich/agent';
import { start_stdio_server } from '@lich/serve';
import { stream_transport } from '@lich/serve/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TuiClient } from '../src/client.js';
import { TuiController } from '../src/controller.js';
import { create_serve_client } from '../src/serve_client.js';
import { create_store } from '../src/store.js';
import { FakeClient } from './fake_client.js';

/** The fake as a `SessionHost`, for the real serve server to sit on. */
function as_session_host(fake: FakeClient): SessionHost {
  return {
    get epoch() {
      return fake.epoch;
    },
    create: () => fake.create(),
    load: (id) => fake.load(id),
    list: () => fake.list(),
    get: (id) => fake.get(id),
    history: (id) => fake.history(id),
    close: async () => undefined,
    delete: async () => undefined,
    set_title: async () => undefined,
    prompt: (id, input, options) => fake.prompt(id, input, options),
    abort: (id) => fake.abort(id),
    interrupt: async (id) => {
      const taken = await fake.interrupt(id);
      return { ...taken, queued_images: taken.queued.map(() => []) };
    },
    steer: (id, text) => fake.steer(id, text),
    follow_up: (id, text) => fake.follow_up(id, text),
    subscribe: (id, listener, options) => fake.subscribe(id, listener, options),
    respond_permission: (id, option) => fake.respond_permission(id, option),
    set_approval_mode: (id, mode) => fake.set_approval_mode(id, mode),
    set_model: async () => undefined,
    commands: () => fake.commands_list,
    run_command: (id, name, args) => fake.run_command(id, name, args),
    models: () => [],
    tools: () => [],
    rewind_points: (id) => fake.rewind_points(id),
    rewind: (id, request) => fake.rewind(id, request),
    idle: async () => undefined,
    shutdown: async () => undefined,
  };
}

const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function connected(): Promise<{ fake: FakeClient; client: TuiClient; end_server(): void }> {
  const fake = new FakeClient();
  const to_server = new PassThrough();
  const to_client = new PassThrough();
  const server = start_stdio_server({
    host: as_session_host(fake),
    input: to_server,
    output: to_client,
  });
  const client = await create_serve_client({
    transport: stream_transport({ input: to_client, output: to_server }),
    reconnect: { max_attempts: 1, initial_delay_ms: 1 },
  });
  stops.push(
    () => server.close(),
    () => client.close(),
  );
  return {
    fake,
    client,
    end_server: () => {
      server.close();
      to_client.end();
    },
  };
}

describe('create_serve_client', () => {
  it('runs a session through the serve protocol: prompt, stream, tools, permission, commands', async () => {
    const { fake, client } = await connected();
    fake.on_prompt = (session_id, input, turn_id) => {
      queueMicrotask(() => {
        fake.emit(session_id, 'turn.started', { turn_id, input, kind: 'prompt' });
        fake.emit(session_id, 'message.delta', { turn_id, text: 'Hello ' });
        fake.emit(session_id, 'tool.start', {
          turn_id,
          tool_call_id: 'c',
          name: 'glob',
          args: { pattern: '*' },
        });
        fake.emit(session_id, 'permission.request', {
          turn_id,
          request_id: 'r1',
          tool_call_id: 'c',
          tool: 'glob',
          args: {},
          title: 'glob: *',
          options: ['allow_once', 'reject_once'],
        });
      });
    };
    const store = create_store({ frame_ms: 0 });
    const controller = new TuiController(client, store);
    await controller.start({ kind: 'new' });
    expect(client.epoch).toBe('epoch-1');
    expect(controller.commands.map((command) => command.name)).toContain('model');
    await controller.submit('hi there');
    await vi.waitFor(() => expect(store.get_state().permissions).toHaveLength(1));
    expect(fake.calls_of('prompt')[0]?.slice(0, 2)).toEqual(['session-1', 'hi there']);
    expect(store.get_state().turn?.tools.map((tool) => tool.name)).toEqual(['glob']);
    await controller.answer_permission('allow_once');
    expect(fake.calls_of('respond_permission')).toEqual([['r1', 'allow_once']]);
    await controller.submit('/model other');
    expect(fake.calls_of('run_command')).toEqual([['session-1', 'model', 'other']]);
    expect(store.get_state().blocks.at(-1)).toMatchObject({
      kind: 'command',
      output: 'ran /model other',
    });
    await controller.submit('and more');
    expect(fake.calls_of('follow_up')).toEqual([['session-1', 'and more']]);
    await controller.submit('/steer left');
    expect(fake.calls_of('steer')).toEqual([['session-1', 'left']]);
    expect(await controller.abort()).toBe(true);
    await controller.close();
  });

  it('replays what a resubscription missed, and says truncated for another epoch', async () => {
    const { fake, client } = await connected();
    const info = await client.create();
    const seen: number[] = [];
    const first = await client.subscribe(info.session_id, (event) => seen.push(event.seq));
    for (let index = 0; index < 3; index += 1)
      fake.emit(info.session_id, 'error', { message: `${index}` });
    await vi.waitFor(() => expect(seen).toEqual([1, 2, 3]));
    first.unsubscribe();
    fake.emit(info.session_id, 'error', { message: 'missed' });
    const again = await client.subscribe(info.session_id, (event) => seen.push(event.seq), {
      after_seq: 3,
      epoch: 'epoch-1',
    });
    expect(again).toMatchObject({ replayed: 1, truncated: false });
    await vi.waitFor(() => expect(seen).toEqual([1, 2, 3, 4]));
    const other = await client.subscribe(info.session_id, () => undefined, {
      after_seq: 1,
      epoch: 'epoch-0',
    });
    expect(other.truncated).toBe(true);
  });

  it('reports a backend it cannot bring back as failed', async () => {
    const { client, end_server } = await connected();
    const states: string[] = [];
    client.on_connection((state) => states.push(state.kind));
    end_server();
    await vi.waitFor(() => expect(states).toEqual(['lost', 'failed']));
  });
});
