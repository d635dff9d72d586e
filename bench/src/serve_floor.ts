/**
 * The floor under the serve benchmark's latency: a bare `ws` server in its own process that sends
 * each of its clients a small message every 20 ms, stamped with `process.hrtime` when it is sent.
 * No Lich at all: what one WebSocket message between two processes costs on this machine, now
 * (the scheduler included). Started through `fork`; sends `{ url }`.
 */
import { WebSocketServer } from 'ws';

const MESSAGES = Number(process.env.BENCH_FLOOR_MESSAGES ?? 300);
const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
server.on('listening', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.send?.({ url: `ws://127.0.0.1:${port}` });
});
server.on('connection', (socket) => {
  let sent = 0;
  const timer = setInterval(() => {
    sent += 1;
    const padding = 'x'.repeat(120);
    socket.send(
      JSON.stringify({ seq: sent, sent_ns: process.hrtime.bigint().toString(), padding }),
    );
    if (sent === MESSAGES) clearInterval(timer);
  }, 20);
  socket.on('close', () => clearInterval(timer));
});
process.on('disconnect', () => {
  server.close();
  process.exit(0);
});
