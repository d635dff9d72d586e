import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  Agent,
  create_session_host,
  type HostEvent,
  make_config,
  type SessionHost,
} from '@lich/agent';
import { type FakeServer, make_temp_dir, start_openai_server, type TempDir } from '@lich/testkit';

/** The real `SessionHost` over an Agent talking to a fake OpenAI-style server, in a temp dir. */
export interface RealHost {
  host: SessionHost;
  model: FakeServer;
  temp: TempDir;
  /** Every event of `session_id`, read in process (the reference a client is compared with). */
  record(session_id: string): Promise<HostEvent[]>;
  cleanup(): Promise<void>;
}

/** Starts the fake model and the host; `notes.txt` holds `hello from the notes`. */
export async function make_real_host(options: { coalesce_ms?: number } = {}): Promise<RealHost> {
  const temp = await make_temp_dir({ prefix: 'lich-serve-host-' });
  await mkdir(join(temp.path, 'work'), { recursive: true });
  await writeFile(join(temp.path, 'work', 'notes.txt'), 'hello from the notes\n');
  const model = await start_openai_server();
  const agent = new Agent({
    config: make_config({
      work_dir: join(temp.path, 'work'),
      providers: [{ kind: 'openai_compat', model: 'fake-model', base_url: model.base_url }],
    }),
    env: {},
    on_warning: () => undefined,
  });
  const host = create_session_host({
    agent,
    on_warning: () => undefined,
    ...(options.coalesce_ms === undefined ? {} : { coalesce_ms: options.coalesce_ms }),
  });
  return {
    host,
    model,
    temp,
    record: async (session_id) => {
      const events: HostEvent[] = [];
      await host.subscribe(session_id, (event) => events.push(event), { after_seq: 0 });
      return events;
    },
    cleanup: async () => {
      await host.shutdown({ deadline_ms: 1000 });
      await model.close();
      await temp.cleanup();
    },
  };
}
