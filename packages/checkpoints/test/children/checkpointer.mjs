// A child process for the kill -9 test: takes checkpoints through the built package.
// Usage: node checkpointer.mjs <work_dir> <label>
// Prints one JSON line when it starts its checkpoint and one when the checkpoint is written.
import { CheckpointStore } from '../../dist/index.js';

const [work_dir, label] = process.argv.slice(2);
const say = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const store = new CheckpointStore({ work_dir });
say({ started: true, pid: process.pid });
const record = await store.create({ kind: 'manual', label });
say({ done: record.id });
