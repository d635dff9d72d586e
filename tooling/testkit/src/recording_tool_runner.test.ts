import { describe, expect, it } from 'vitest';
import { recording_tool_runner } from './recording_tool_runner.js';

describe('recording_tool_runner', () => {
  it('answers from handlers, records calls, and reports unknown tools as data', async () => {
    const runner = recording_tool_runner({
      echo: (args) => `echo ${JSON.stringify(args)}`,
      fail: () => ({ ok: false, output: 'no such file', error: 'no such file' }),
    });
    const echoed = await runner.execute('echo', { a: 1 }, { tool_call_id: 'call_1' });
    expect(echoed).toMatchObject({ ok: true, output: 'echo {"a":1}' });
    expect(echoed.duration_ms).toBeGreaterThanOrEqual(0);
    expect(await runner.execute('fail', {})).toMatchObject({ ok: false, error: 'no such file' });
    expect(await runner.execute('nope', {})).toMatchObject({
      ok: false,
      error: "unknown tool 'nope'",
    });
    expect(runner.calls.map((call) => call.name)).toEqual(['echo', 'fail', 'nope']);
    expect(runner.calls[0]?.context?.tool_call_id).toBe('call_1');
    expect(runner.calls[0]?.result?.output).toBe('echo {"a":1}');
  });

  it('rejects when a handler throws, and records the error', async () => {
    const problem = new Error('broken tool');
    const runner = recording_tool_runner({
      bad: () => {
        throw problem;
      },
    });
    await expect(runner.execute('bad', {})).rejects.toBe(problem);
    expect(runner.calls[0]?.error).toBe(problem);
    expect(runner.calls[0]?.ended_at).toBeDefined();
  });
});
