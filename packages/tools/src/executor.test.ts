import type { Tool, ToolRunContext } from '@lich/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolExecutor } from './executor.js';
import { ToolRegistry } from './registry.js';

function setup(
  tools: Tool<never>[],
  options: Partial<ConstructorParameters<typeof ToolExecutor>[1]> = {},
) {
  const registry = new ToolRegistry();
  for (const tool of tools) registry.register(tool);
  return new ToolExecutor(registry, { work_dir: '/tmp', ...options });
}

const echo: Tool<{ text: string; times: number }> = {
  name: 'echo',
  description: 'repeat text',
  parameters: z.object({ text: z.string(), times: z.number().int().min(1).default(1) }),
  execute: async ({ text, times }) => text.repeat(times),
};

const boom: Tool<Record<string, never>> = {
  name: 'boom',
  description: 'throws',
  parameters: z.object({}),
  execute: async () => {
    throw new Error('the disk caught fire');
  },
};

const sync_boom = {
  name: 'sync_boom',
  description: 'throws synchronously',
  parameters: z.object({}),
  execute: () => {
    throw new TypeError('not even async');
  },
} as unknown as Tool<Record<string, never>>;

function waiting_tool(
  name: string,
  timeout_ms?: number,
  obey_signal = true,
): Tool<Record<string, never>> {
  return {
    name,
    description: 'waits',
    parameters: z.object({}),
    timeout_ms,
    execute: (_args, context) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve('finished'), 60_000);
        if (obey_signal) {
          context.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve('partial output');
          });
        }
      }),
  };
}

const as_never = (tool: unknown) => tool as Tool<never>;

describe('ToolExecutor', () => {
  it('runs a tool with validated, coerced arguments', async () => {
    const executor = setup([as_never(echo)]);
    const result = await executor.execute('echo', '{"text":"ab","times":"3"}');
    expect(result.ok).toBe(true);
    expect(result.output).toBe('ababab');
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('turns an unknown tool into ok:false naming the nearest tools', async () => {
    const executor = setup([as_never(echo), as_never(boom)]);
    const result = await executor.execute('ecko', {});
    expect(result.ok).toBe(false);
    expect(result.output).toContain("Unknown tool 'ecko'. Did you mean 'echo'?");
    expect(result.output).toContain('Available tools: echo, boom.');
    expect(result.error).toBe("unknown tool 'ecko'");
    expect(typeof result.duration_ms).toBe('number');
  });

  it('turns invalid arguments into ok:false with the validation message', async () => {
    const executor = setup([as_never(echo)]);
    const result = await executor.execute('echo', { times: 'many' });
    expect(result.ok).toBe(false);
    expect(result.output).toContain("'text': required, expected string");
    expect(result.output).toContain("'times'");
  });

  it('turns a throwing tool (async or sync) into ok:false', async () => {
    const executor = setup([as_never(boom), as_never(sync_boom)]);
    const result = await executor.execute('boom', {});
    expect(result).toMatchObject({
      ok: false,
      output: "Tool 'boom' failed: the disk caught fire",
      error: 'the disk caught fire',
    });
    const sync = await executor.execute('sync_boom', {});
    expect(sync).toMatchObject({ ok: false, error: 'not even async' });
  });

  it('keeps a tool’s own ok:false outcome', async () => {
    const refusing: Tool<Record<string, never>> = {
      name: 'refuse',
      description: 'refuses',
      parameters: z.object({}),
      execute: async () => ({ ok: false, output: 'no such file: a.txt' }),
    };
    const result = await setup([as_never(refusing)]).execute('refuse', {});
    expect(result).toMatchObject({
      ok: false,
      output: 'no such file: a.txt',
      error: 'no such file: a.txt',
    });
  });

  it('times out with the tool’s own timeout_ms, and the tool sees the signal fire', async () => {
    const executor = setup([as_never(waiting_tool('slow', 50))], { default_timeout_ms: 10_000 });
    const started = Date.now();
    const result = await executor.execute('slow', {});
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.ok).toBe(false);
    expect(result.error).toBe('timed out after 50 ms');
    expect(result.output).toContain("Tool 'slow' timed out after 50 ms");
    expect(result.output).toContain('partial output');
  });

  it('uses the default timeout, and does not wait past settle_ms for a tool that ignores it', async () => {
    const executor = setup([as_never(waiting_tool('stubborn', undefined, false))], {
      default_timeout_ms: 40,
      settle_ms: 30,
    });
    const started = Date.now();
    const result = await executor.execute('stubborn', {});
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(result).toMatchObject({ ok: false, error: 'timed out after 40 ms' });
  });

  it('links the run’s abort signal to the tool, and refuses to start when already aborted', async () => {
    let seen: AbortSignal | undefined;
    const tool: Tool<Record<string, never>> = {
      ...waiting_tool('wait'),
      execute: (args, context) => {
        seen = context.signal;
        return waiting_tool('x').execute(args, context);
      },
    };
    const executor = setup([as_never(tool)]);
    const controller = new AbortController();
    const running = executor.execute('wait', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const result = await running;
    expect(result).toMatchObject({ ok: false, error: 'aborted' });
    expect(seen?.aborted).toBe(true);

    const before = await executor.execute('wait', {}, { signal: AbortSignal.abort() });
    expect(before).toMatchObject({ ok: false, error: 'aborted' });
  });

  it('reports a call aborted while its before hook ran at once, not when the tool ends', async () => {
    const executor = setup([as_never(waiting_tool('wait', undefined, false))], { settle_ms: 10 });
    const controller = new AbortController();
    executor.add_hooks({
      before_tool_call: async () => {
        controller.abort();
      },
    });
    const started = performance.now();
    const result = await executor.execute('wait', {}, { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, error: 'aborted' });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a signal read after the call was stopped is aborted, with the reason', async () => {
    let late: AbortSignal | undefined;
    const reader: Tool<Record<string, never>> = {
      name: 'reader',
      description: 'looks at its signal only once it was stopped',
      parameters: z.object({}),
      timeout_ms: 20,
      execute: async (_args, context) => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        late = context.signal;
        return 'late';
      },
    };
    const executor = setup([as_never(reader)], { settle_ms: 200 });
    const result = await executor.execute('reader', {}, { signal: new AbortController().signal });
    expect(result).toMatchObject({ ok: false, error: 'timed out after 20 ms' });
    expect(late?.aborted).toBe(true);
    expect(String(late?.reason)).toContain('timed out after 20 ms');
  });

  it('passes work_dir, signal, tool_call_id and max_output_chars in the context', async () => {
    let context: ToolRunContext | undefined;
    const spy: Tool<Record<string, never>> = {
      name: 'spy',
      description: 'records its context',
      parameters: z.object({}),
      execute: async (_args, given) => {
        context = given;
        return 'ok';
      },
    };
    const executor = setup([as_never(spy)], { work_dir: '/w', max_output_chars: 1_000 });
    await executor.execute('spy', {}, { tool_call_id: 'call_1' });
    expect(context?.work_dir).toBe('/w');
    expect(context?.tool_call_id).toBe('call_1');
    expect(context?.signal).toBeInstanceOf(AbortSignal);
    expect(context?.max_output_chars).toBe(1_000);
    await executor.execute('spy', {}, { work_dir: '/other' });
    expect(context?.work_dir).toBe('/other');
  });

  it('counts only the tool’s own time, from when the hooks let it through (on_running), C13', async () => {
    const executor = setup([echo as Tool<never>], {
      hooks: {
        // a person taking 300 ms to approve
        before_tool_call: () => new Promise((resolve) => setTimeout(() => resolve(undefined), 300)),
      },
    });
    const events: string[] = [];
    const result = await executor.execute(
      'echo',
      { text: 'x' },
      { on_running: () => events.push('running') },
    );
    expect(result.ok).toBe(true);
    expect(events).toEqual(['running']);
    expect(result.duration_ms).toBeLessThan(250);
    // a blocked call never reports running
    const blocked = setup([echo as Tool<never>], {
      hooks: { before_tool_call: () => ({ block: 'no' }) },
    });
    const none: string[] = [];
    await blocked.execute('echo', { text: 'x' }, { on_running: () => none.push('running') });
    expect(none).toEqual([]);
  });

  it('clamps long output keeping head and tail, marking the cut', async () => {
    const long: Tool<Record<string, never>> = {
      name: 'long',
      description: 'prints a lot',
      parameters: z.object({}),
      execute: async () => `HEAD-${'x'.repeat(100_000)}-TAIL`,
    };
    const result = await setup([as_never(long)], { max_output_chars: 1_000 }).execute('long', {});
    expect(result.ok).toBe(true);
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBeLessThanOrEqual(1_000);
    expect(result.output.startsWith('HEAD-')).toBe(true);
    expect(result.output.endsWith('-TAIL')).toBe(true);
    expect(result.output).toMatch(/cut \d+ chars/);
  });

  it('lets a before hook block or rewrite arguments, and an after hook observe or replace', async () => {
    const seen: unknown[] = [];
    const executor = setup([as_never(echo)], {
      hooks: [
        {
          before_tool_call: (_name, args) => {
            const { text } = args as { text: string };
            if (text === 'secret') return { block: 'not that text' };
            if (text === 'short') return { args: { text: 'rewritten', times: '2' } };
            return undefined;
          },
          after_tool_call: (name, args, result) => {
            seen.push({ name, args, output: result.output });
          },
        },
      ],
    });
    const blocked = await executor.execute('echo', { text: 'secret' });
    expect(blocked).toMatchObject({ ok: false, error: 'not that text' });
    expect(blocked.output).toContain("Tool call 'echo' blocked: not that text");
    const rewritten = await executor.execute('echo', { text: 'short' });
    expect(rewritten.output).toBe('rewrittenrewritten');
    expect(seen).toEqual([
      { name: 'echo', args: { text: 'rewritten', times: 2 }, output: 'rewrittenrewritten' },
    ]);

    const remove = executor.add_hooks({
      after_tool_call: (_name, _args, result) => ({ ...result, output: `${result.output}!` }),
    });
    expect((await executor.execute('echo', { text: 'a' })).output).toBe('a!');
    remove();
    expect((await executor.execute('echo', { text: 'a' })).output).toBe('a');
  });

  it('fails closed when a before hook throws, and ignores an after hook that throws', async () => {
    const closed = setup([as_never(echo)], {
      hooks: {
        before_tool_call: () => {
          throw new Error('policy unavailable');
        },
      },
    });
    expect(await closed.execute('echo', { text: 'a' })).toMatchObject({
      ok: false,
      error: 'a before_tool_call hook failed: policy unavailable',
    });
    const open = setup([as_never(echo)], {
      hooks: {
        after_tool_call: () => {
          throw new Error('observer broke');
        },
      },
    });
    expect(await open.execute('echo', { text: 'a' })).toMatchObject({ ok: true, output: 'a' });
  });

  it('rejects rewritten arguments that do not validate', async () => {
    const executor = setup([as_never(echo)], {
      hooks: { before_tool_call: () => ({ args: { text: 42 } }) },
    });
    const result = await executor.execute('echo', { text: 'a' });
    expect(result.ok).toBe(false);
    expect(result.output).toContain("'text': expected string");
  });
});
