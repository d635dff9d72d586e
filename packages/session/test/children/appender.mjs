// A child process for the crash tests: it appends to a session through the built package.
// Usage: node appender.mjs <mode> <session_dir> <id> [record_bytes]
//   loop: create the session, then append forever, printing each acknowledged record's index
//   hold: open the session for writing and wait to be killed
//   fill: create the session, append until a write fails, then append a small record
import { stat } from 'node:fs/promises';
import { SessionStore } from '../../dist/index.js';

const [mode, session_dir, id, record_bytes = '10000'] = process.argv.slice(2);
const store = new SessionStore({ session_dir });
const created = { id, work_dir: session_dir, model: 'child', lich_version: '0.0.0' };
const say = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

/** The content of message `index`: its index, then a length that varies, all checkable. */
const content_of = (index, bytes) => `${index}:${'x'.repeat(bytes + ((index * 7919) % bytes))}`;

const message = (index, content) => ({
  type: 'message',
  run: 1,
  index,
  source: 'seed',
  message: { role: 'user', content },
});

if (mode === 'loop') {
  const handle = await store.create(created);
  say({ ready: true, pid: process.pid });
  for (let index = 0; ; index++) {
    await handle.append(message(index, content_of(index, Number(record_bytes))));
    say({ acknowledged: index });
  }
} else if (mode === 'hold') {
  const handle = await store.open(id);
  say({ ready: true, pid: process.pid, path: handle.path });
  setInterval(() => undefined, 60_000);
} else if (mode === 'fill') {
  const handle = await store.create(created);
  for (let index = 0; ; index++) {
    const before = (await stat(handle.path)).size;
    try {
      await handle.append(message(index, 'y'.repeat(Number(record_bytes))));
    } catch (error) {
      const after = (await stat(handle.path)).size;
      say({ failed: index, code: error.code, message: error.message, before, after });
      break;
    }
  }
  try {
    await handle.append(message(1000, 'a small record after the failure'));
    say({ later: 'ok', size: (await stat(handle.path)).size, failed_writes: handle.failed_writes });
  } catch (error) {
    say({ later: 'failed', message: error.message });
  }
  await handle.close();
} else {
  throw new Error(`unknown mode ${mode}`);
}
