/**
 * The server side of the serve benchmark, in its own process (the one whose RSS is measured):
 * the real `SessionHost` over an Agent pointed at the fake model, served by `start_ws_server` as
 * `lich serve` does. Every session it creates is also read in process — the baseline — and the
 * time each event reached that in-process listener is kept (`process.hrtime`, CLOCK_MONOTONIC,
 * one clock for every process on the machine). Started through `fork`; sends `{ url, token }`,
 * answers `report` with those times and the peak RSS (VmHWM).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, create_session_host, make_config, type SessionHost } from '@lich/agent';
import { make_token, start_ws_server } from '@lich/serve';

const base_url = process.env.BENCH_BASE_URL ?? '';
const coalesce_ms =
  process.env.BENCH_COALESCE_MS === undefined ? undefined : Number(process.env.BENCH_COALESCE_MS);
const work_dir = await mkdtemp(join(tmpdir(), 'lich-bench-serve-'));
const agent = new Agent({
  config: make_config({
    work_dir,
    providers: [{ kind: 'openai_compat', model: 'fake', base_url }],
    tools_enabled: [],
  }),
  env: {},
});
const real = create_session_host({
  agent,
  storage: false,
  ...(coalesce_ms === undefined ? {} : { coalesce_ms }),
});
/** session → [seq, ns] of each event, as the in-process listener got it. */
const arrivals = new Map<string, [number, string][]>();
const create: SessionHost['create'] = async (options) => {
  const info = await real.create(options);
  const times: [number, string][] = [];
  arrivals.set(info.session_id, times);
  // subscribed before any client can be: this listener hears each event first
  await real.subscribe(info.session_id, (event) => {
    times.push([event.seq, process.hrtime.bigint().toString()]);
  });
  return info;
};
/** session → [seq, ns] of each event once the server's own listener (encode, send) returned. */
const sent = new Map<string, [number, string][]>();
const subscribe: SessionHost['subscribe'] = (session_id, listener, options) => {
  const times: [number, string][] = [];
  sent.set(session_id, times);
  return real.subscribe(
    session_id,
    (event) => {
      listener(event);
      times.push([event.seq, process.hrtime.bigint().toString()]);
    },
    options,
  );
};
// the host as `lich serve` gets it, but with `create` and `subscribe` above (bound: the host
// keeps private fields)
const host = new Proxy(real, {
  get(target, name) {
    if (name === 'create') return create;
    if (name === 'subscribe') return subscribe;
    const value: unknown = Reflect.get(target, name, target);
    return typeof value === 'function' ? value.bind(target) : value;
  },
}) as SessionHost;
const token = make_token();
const server = await start_ws_server({ host, token });
process.send?.({ url: server.url, token });

function peak_rss_kb(): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) : process.resourceUsage().maxRSS;
}

process.on('message', (message: { kind: string }) => {
  if (message.kind === 'report') {
    process.send?.({
      arrivals: Object.fromEntries(arrivals),
      sent: Object.fromEntries(sent),
      peak_rss_kb: peak_rss_kb(),
    });
  }
});
process.on('disconnect', () => {
  void server
    .close()
    .then(() => real.shutdown({ deadline_ms: 100 }))
    .then(() => process.exit(0));
});
