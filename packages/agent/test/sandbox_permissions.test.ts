import type { ToolResult } from '@lich/core';
import { make_temp_dir, type TempDir, to_chat_result } from '@lich/testkit';
import { describe_gated, sandbox_gate } from '@lich/testkit/gates';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Agent } from '../src/agent.js';
import { make_config } from '../src/config/config_load.js';
import { scripted_chat } from './host_support.js';

let temp: TempDir;

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-agent-sandbox-' });
});

afterEach(async () => {
  await temp.cleanup();
});

/** Runs one `terminal` call through `Agent.run` and returns its result. */
async function terminal_result(config: Parameters<typeof make_config>[0]): Promise<ToolResult> {
  const chat = scripted_chat((call) =>
    call.messages.at(-1)?.role === 'tool'
      ? 'done'
      : to_chat_result({ tool_calls: [{ name: 'terminal', arguments: { command: 'true' } }] }),
  );
  const agent = new Agent({ config: make_config({ work_dir: temp.path, ...config }), chat });
  let result: ToolResult | undefined;
  try {
    await agent.run({
      input: 'run true',
      session: false,
      on_event: (event) => {
        if (event.type === 'tool_call_end') result = event.result;
      },
    });
  } finally {
    await agent.close();
  }
  if (result === undefined) throw new Error('terminal did not run');
  return result;
}

describe_gated([sandbox_gate()], 'the sandbox and the permission policy', () => {
  it('runs a command allowed always sandboxed', async () => {
    const result = await terminal_result({
      permissions: { allow: ['terminal'], ask: [], deny: [] },
    });
    expect(result).toMatchObject({ ok: true, sandbox: 'bwrap' });
  });

  it('runs commands sandboxed in yolo mode unless sandbox.mode is off too', async () => {
    const yolo = { mode: 'yolo' as const, allow: [], ask: [], deny: [] };
    expect((await terminal_result({ permissions: yolo })).sandbox).toBe('bwrap');
    const off = await terminal_result({ permissions: yolo, sandbox: { mode: 'off' } });
    expect(off).toMatchObject({ ok: true, sandbox: 'none' });
  });
});
