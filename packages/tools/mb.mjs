import { readFile } from 'node:fs/promises';
import { read_file_tool, ToolExecutor, ToolRegistry } from './dist/index.js';

const registry = new ToolRegistry();
registry.register(read_file_tool);
const ex = new ToolExecutor(registry, { work_dir: '/tmp/mb' });
const signal = new AbortController().signal;
const N = 20000;
for (const round of process.env.ROUNDS ? [1] : [1, 2, 3]) {
  let t = performance.now();
  let c = process.cpuUsage();
  for (let i = 0; i < N; i++) await ex.execute('read_file', { path: 'notes.txt' }, { signal });
  let cu = process.cpuUsage(c);
  console.log(
    'lich read_file us/call',
    (((performance.now() - t) * 1000) / N).toFixed(1),
    'cpu',
    ((cu.user + cu.system) / N).toFixed(1),
  );
  t = performance.now();
  c = process.cpuUsage();
  for (let i = 0; i < N; i++) await readFile('/tmp/mb/notes.txt', 'utf8');
  cu = process.cpuUsage(c);
  console.log(
    'bare readFile us/call',
    (((performance.now() - t) * 1000) / N).toFixed(1),
    'cpu',
    ((cu.user + cu.system) / N).toFixed(1),
  );
}
