import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { make_sandbox, run_lich, type Sandbox } from './helpers.js';

let sandbox: Sandbox;
let first: FakeServer;
let second: FakeServer;

beforeEach(async () => {
  first = await start_openai_server();
  second = await start_openai_server();
  sandbox = await make_sandbox({
    '.lich/config.json': JSON.stringify({
      providers: [
        { kind: 'openai_compat', model: 'first-model', base_url: first.base_url },
        { kind: 'openai_compat', model: 'second-model', base_url: second.base_url },
      ],
    }),
  });
});

afterEach(async () => {
  await first.close();
  await second.close();
  await sandbox.cleanup();
});

describe('failover is sticky (a circuit breaker)', () => {
  it('after the first provider failed, the next turn goes straight to the second', async () => {
    first.enqueue({ kind: 'status', status: 401, message: 'bad key' });
    second.enqueue(
      { tool_calls: [{ name: 'list_dir', arguments: {} }] },
      { tool_calls: [{ name: 'list_dir', arguments: {} }] },
      { text: 'done' },
    );
    const result = await run_lich(['--no-session', 'look around'], {
      cwd: sandbox.work_dir,
      env: sandbox.env,
    });
    expect(result.stderr).toMatch(/trying openai_compat \(second-model\)/);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('done\n');
    expect(first.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(3);
    // one line about the switch, not one per turn
    expect(result.stderr.match(/trying openai_compat/g)).toHaveLength(1);
  });
});
