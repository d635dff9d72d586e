/**
 * The server side of the serve benchmark, in its own process (the one whose RSS is measured):
 * the real `SessionHost` over an Agent pointed at the fake model, served by `start_ws_server` as
 * `lich serve` does. Every session it creates is also read in process, by a listener subscribed
 * before any client can be: the baseline. That listener stamps each event (`process.hrtime`,
 * CLOCK_MONOTONIC, one clock for every process on the machine) and at once sends a bare `ws`
 * message of about an event's size, carrying the seq and the stamp, on a second socket (a bare
 * `ws` server, no Lich) to the same client process: the floor, what any message from this process
 * to that one costs at that moment. Lich's own listener (encode, `ws.send`) runs after it, so the
 * floor's send is counted in Lich's figure, never the other way round. Started through `fork`;
 * sends `{ url, token, bare_url }`; answers `mark` (the run starts) with `marked`, and `report`
 * with the stamps, the peak RSS (VmHWM) and the CPU time used since `mark`.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, create_session_host, make_config, type SessionHost } from '@lich/agent';
import { make_token, start_ws_server } from '@lich/serve';
import { WebSocket, WebSocketServer } from 'ws';

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

/** Times as numbers (ns of CLOCK_MONOTONIC), by seq: `[seq, ns, seq, ns, …]`. */
type Stamps = number[];
const now_ns = () => Number(process.hrtime.bigint());

/** The bare socket of each session, which its client opened by sending the session id. */
const bare_sockets = new Map<string, WebSocket>();
const bare = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
bare.on('connection', (socket) => {
  socket.once('message', (data) => bare_sockets.set(data.toString(), socket));
});
await new Promise((resolve) => bare.once('listening', resolve));
const bare_address = bare.address();
const bare_url = `ws://127.0.0.1:${typeof bare_address === 'object' && bare_address !== null ? bare_address.port : 0}`;
/** About the length of a `message.delta` notification, so the floor carries as many bytes. */
const PADDING = 'x'.repeat(180);

/** session → [seq, ns] of each event, as the in-process listener got it. */
const arrivals = new Map<string, Stamps>();
const create: SessionHost['create'] = async (options) => {
  const info = await real.create(options);
  const times: Stamps = [];
  arrivals.set(info.session_id, times);
  // subscribed before any client can be: this listener hears each event first
  await real.subscribe(info.session_id, (event) => {
    const ns = now_ns();
    times.push(event.seq, ns);
    const socket = bare_sockets.get(info.session_id);
    if (socket?.readyState === WebSocket.OPEN) {
      socket.send(`{"seq":${event.seq},"ns":${ns},"padding":"${PADDING}"}`);
    }
  });
  return info;
};
/** session → [seq, ns] of each event once the server's own listener (encode, send) returned. */
const sent = new Map<string, Stamps>();
const subscribe: SessionHost['subscribe'] = (session_id, listener, options) => {
  const times: Stamps = [];
  sent.set(session_id, times);
  return real.subscribe(
    session_id,
    (event) => {
      listener(event);
      times.push(event.seq, now_ns());
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
process.send?.({ url: server.url, token, bare_url });

function peak_rss_kb(): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) : process.resourceUsage().maxRSS;
}

/** CPU time used since `mark` (the prompts are about to go out). */
let cpu_at_mark = process.cpuUsage();
process.on('message', (message: { kind: string }) => {
  if (message.kind === 'mark') {
    cpu_at_mark = process.cpuUsage();
    process.send?.({ kind: 'marked' });
  } else if (message.kind === 'report') {
    const cpu = process.cpuUsage(cpu_at_mark);
    process.send?.({
      arrivals: Object.fromEntries(arrivals),
      sent: Object.fromEntries(sent),
      peak_rss_kb: peak_rss_kb(),
      cpu_ms: (cpu.user + cpu.system) / 1000,
    });
  }
});
process.on('disconnect', () => {
  bare.close();
  void server
    .close()
    .then(() => real.shutdown({ deadline_ms: 100 }))
    .then(() => process.exit(0));
});
