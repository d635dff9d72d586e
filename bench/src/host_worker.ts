/**
 * The measured process of the host benchmark (`host.ts`): one Agent on the real provider path
 * (router, OpenAI-compatible provider, HTTP) against the fake model in another process. It runs
 * `BENCH_SESSIONS` streaming answers at once, in rounds of two kinds:
 *
 * - `bare`: `Agent.run` per session, its `llm_delta` events read by an `on_event` listener;
 * - `host`: the same through one `SessionHost` (`create`, `subscribe`, `prompt`), its
 *   `message.delta` events read by a subscriber. Coalescing is off (`coalesce_ms: 0`), so every
 *   delta is an event and pays the host's whole per-event path (mapping, the ring and its byte
 *   count, fan-out).
 *
 * Each text delta is stamped (`performance.now()`) when the provider hands it to the loop; an
 * event's latency is the time from that stamp to its reader. The host's added latency is the
 * host rounds' figure minus the bare rounds'. Started through `fork`; answers `run` messages with
 * the latencies of one round, and `report` with the peak RSS (VmHWM).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  Agent,
  create_provider_chat,
  create_session_host,
  make_config,
  type SessionHost,
} from '@lich/agent';
import type { ChatFn } from '@lich/core';
import { content_text } from '@lich/core';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 50);
/** 0 (every delta an event) unless told otherwise. */
const COALESCE_MS = Number(process.env.BENCH_COALESCE_MS ?? 0);
const base_url = process.env.BENCH_BASE_URL ?? '';
const work_dir = await mkdtemp(join(tmpdir(), 'lich-bench-host-'));
const config = make_config({
  work_dir,
  providers: [{ kind: 'openai_compat', model: 'fake', base_url }],
  tools_enabled: [],
});

/**
 * Times (`performance.now()`, ms) in a preallocated array: recording one allocates nothing, so
 * the measuring adds no garbage of its own to the process whose RSS is measured.
 */
class Stamps {
  #times = new Float64Array(4096);
  length = 0;

  push(time: number): void {
    if (this.length === this.#times.length) {
      const grown = new Float64Array(this.#times.length * 2);
      grown.set(this.#times);
      this.#times = grown;
    }
    this.#times[this.length++] = time;
  }

  at(index: number): number {
    return this.#times[index] as number;
  }
}

/** session index → the stamps of its text deltas in this round. */
let stamps: Stamps[] = [];
const provider_chat = create_provider_chat(config.providers, { env: {} });
/** The real provider chat, stamping each text delta as it reaches the loop. */
const chat: ChatFn = (messages, tools, options = {}) => {
  const input = content_text(
    messages.findLast((message) => message.role === 'user')?.content ?? '',
  );
  const into = stamps[Number(/go (\d+)/.exec(input)?.[1] ?? -1)];
  const on_delta = options.on_delta;
  return provider_chat(messages, tools, {
    ...options,
    on_delta: (delta) => {
      if (delta.kind === 'text') into?.push(performance.now());
      on_delta?.(delta);
    },
  });
};
const agent = new Agent({ config, chat, env: {}, on_warning: () => undefined });
const host: SessionHost = create_session_host({
  agent,
  storage: false,
  coalesce_ms: COALESCE_MS,
  on_warning: () => undefined,
});

/** One round: every session streams one answer; resolves with the latencies in ms. */
async function round(kind: 'bare' | 'host'): Promise<{
  latencies: number[];
  mismatched: number;
  loop_delay_p99_ms: number;
  wall_ms: number;
}> {
  stamps = Array.from({ length: SESSIONS }, () => new Stamps());
  const reads: Stamps[] = Array.from({ length: SESSIONS }, () => new Stamps());
  const loop_delay = monitorEventLoopDelay({ resolution: 1 });
  const started = performance.now();
  if (kind === 'bare') {
    loop_delay.enable();
    await Promise.all(
      reads.map((into, index) =>
        agent.run({
          input: `go ${index}`,
          session: false,
          on_event: (event) => {
            if (event.type === 'llm_delta' && event.delta.kind === 'text') {
              into.push(performance.now());
            }
          },
        }),
      ),
    );
  } else {
    const sessions = await Promise.all(reads.map(() => host.create()));
    // each session's completion, wrapped: an async function returning a bare promise would be
    // awaited here, before any prompt
    const done = await Promise.all(
      sessions.map(async ({ session_id }, index) => {
        const into = reads[index] as Stamps;
        let finished!: () => void;
        const completed = new Promise<void>((resolve) => {
          finished = resolve;
        });
        await host.subscribe(session_id, (event) => {
          if (event.type === 'message.delta') into.push(performance.now());
          else if (event.type === 'turn.completed') finished();
        });
        return { completed };
      }),
    );
    loop_delay.enable();
    await Promise.all(
      sessions.map(({ session_id }, index) => host.prompt(session_id, `go ${index}`)),
    );
    await Promise.all(done.map((entry) => entry.completed));
    await Promise.all(sessions.map(({ session_id }) => host.close(session_id)));
  }
  loop_delay.disable();
  const wall_ms = performance.now() - started;
  const latencies: number[] = [];
  let mismatched = 0;
  for (let index = 0; index < SESSIONS; index += 1) {
    const sent = stamps[index] as Stamps;
    const got = reads[index] as Stamps;
    if (sent.length !== got.length) mismatched += 1;
    const count = Math.min(sent.length, got.length);
    for (let k = 0; k < count; k += 1) latencies.push(got.at(k) - sent.at(k));
  }
  return { latencies, mismatched, loop_delay_p99_ms: loop_delay.percentile(99) / 1e6, wall_ms };
}

function peak_rss_kb(): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) : process.resourceUsage().maxRSS;
}

process.on('message', (message: { kind: string; round?: 'bare' | 'host' }) => {
  if (message.kind === 'run' && message.round !== undefined) {
    round(message.round).then(
      (result) => process.send?.({ kind: 'round', ...result, rss_kb: peak_rss_kb() }),
      (error: unknown) => process.send?.({ kind: 'failed', error: String(error) }),
    );
  } else if (message.kind === 'report') {
    process.send?.({ kind: 'report', peak_rss_kb: peak_rss_kb() });
  }
});
process.on('disconnect', () => {
  void host.shutdown({ deadline_ms: 100 }).then(() => process.exit(0));
});
process.send?.({ kind: 'ready' });
