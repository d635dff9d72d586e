/**
 * The fake model of the serve benchmark, in its own process so that streaming it costs neither
 * the server nor the clients: an OpenAI-compatible server answering each request with one
 * 2,000-token answer (8,000 characters in 2,000 pieces, a piece a millisecond). Started by
 * `serve.ts` through `fork`; sends `{ base_url }`, and stops when the parent disconnects.
 */
import { start_openai_server } from '@lich/testkit';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const CHUNK_DELAY_MS = Number(process.env.BENCH_CHUNK_DELAY_MS ?? 1);
const WORDS = 'lich streams every token to every client in order and never drops one ';

const text = WORDS.repeat(Math.ceil(8000 / WORDS.length)).slice(0, 8000);
const server = await start_openai_server({
  script: Array.from({ length: CLIENTS }, () => ({
    text,
    chunk_chars: 4,
    chunk_delay_ms: CHUNK_DELAY_MS,
  })),
});
process.send?.({ base_url: server.base_url });
process.on('disconnect', () => {
  void server.close().then(() => process.exit(0));
});
