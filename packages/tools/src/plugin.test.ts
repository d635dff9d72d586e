import type { AgentEvent, Tool } from '@lich/core';
import { AgentEmitter } from '@lich/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolExecutor } from './executor.js';
import { type Plugin, PluginError, PluginHost } from './plugin.js';
import { ToolRegistry } from './registry.js';

const echo: Tool<{ text: string }> = {
  name: 'echo',
  description: 'echo',
  parameters: z.object({ text: z.string() }),
  execute: async ({ text }) => text,
};

function tool_named(name: string): Tool<{ text: string }> {
  return { ...echo, name };
}

async function setup(...plugins: Plugin[]) {
  const failures: string[] = [];
  const host = new PluginHost({
    on_error: (error, failure) =>
      failures.push(`${failure.plugin}/${failure.hook}: ${(error as Error).message}`),
  });
  await host.load_all(plugins);
  const registry = new ToolRegistry();
  registry.register(echo);
  host.register_tools(registry);
  const executor = new ToolExecutor(registry, { work_dir: '/tmp' });
  executor.add_hooks(host.tool_hooks);
  return { host, registry, executor, failures };
}

describe('PluginHost', () => {
  it('registers plugin tools the model can call', async () => {
    const { registry, executor, host } = await setup({
      name: 'shout',
      register(api) {
        expect(api.plugin_name).toBe('shout');
        api.register_tool({
          ...echo,
          name: 'shout',
          execute: async ({ text }) => text.toUpperCase(),
        });
      },
    });
    expect(host.plugin_names).toEqual(['shout']);
    expect(registry.names()).toEqual(['echo', 'shout']);
    expect(await executor.execute('shout', { text: 'hi' })).toMatchObject({
      ok: true,
      output: 'HI',
    });
  });

  it('lets before_tool_call block a call with a reason, or rewrite its arguments', async () => {
    const calls: unknown[] = [];
    const { executor } = await setup(
      {
        name: 'censor',
        register(api) {
          api.before_tool_call((name, args) => {
            calls.push(args);
            const text = (args as { text: string }).text;
            if (text === 'secret') return { block: 'no secrets' };
            if (name === 'echo') return { args: { text: `${text}!` } };
            return undefined;
          });
        },
      },
      {
        name: 'second',
        register(api) {
          api.before_tool_call((_name, args) => {
            calls.push(args);
            return { args: { text: `${(args as { text: string }).text}?` } };
          });
        },
      },
    );
    const blocked = await executor.execute('echo', { text: 'secret' });
    expect(blocked).toMatchObject({ ok: false, error: 'no secrets' });
    expect(blocked.output).toContain('no secrets');
    expect(calls).toEqual([{ text: 'secret' }]); // the first block wins; later hooks do not run

    const rewritten = await executor.execute('echo', { text: 'hi' });
    expect(rewritten).toMatchObject({ ok: true, output: 'hi!?' });
  });

  it('re-validates rewritten arguments and blocks when a hook throws (fail closed)', async () => {
    const { executor } = await setup({
      name: 'broken',
      register(api) {
        api.before_tool_call((_name, args) => {
          if ((args as { text: string }).text === 'bad') return { args: { text: 42 } };
          throw new Error('hook exploded');
        });
      },
    });
    const invalid = await executor.execute('echo', { text: 'bad' });
    expect(invalid.ok).toBe(false);
    expect(invalid.output).toMatch(/text/);
    const thrown = await executor.execute('echo', { text: 'x' });
    expect(thrown.ok).toBe(false);
    expect(thrown.output).toMatch(/plugin 'broken' failed in before_tool_call: hook exploded/);
  });

  it('chains after_tool_call replacements and skips a hook that throws', async () => {
    const { executor, failures } = await setup(
      {
        name: 'tag',
        register(api) {
          api.after_tool_call((_name, _args, result) => ({
            ...result,
            output: `[tagged] ${result.output}`,
          }));
        },
      },
      {
        name: 'crash',
        register(api) {
          api.after_tool_call(() => {
            throw new Error('after broke');
          });
        },
      },
      {
        name: 'observe',
        register(api) {
          api.after_tool_call(() => undefined);
        },
      },
    );
    expect(await executor.execute('echo', { text: 'hi' })).toMatchObject({
      ok: true,
      output: '[tagged] hi',
    });
    expect(failures).toEqual(['crash/after_tool_call: after broke']);
  });

  it('delivers events to on_event listeners through an AgentEmitter, isolating failures', async () => {
    const heard: string[] = [];
    const { host, failures } = await setup(
      {
        name: 'listener',
        register(api) {
          api.on_event((event) => {
            heard.push(event.type);
          });
        },
      },
      {
        name: 'noisy',
        register(api) {
          api.on_event(() => {
            throw new Error('sync boom');
          });
          api.on_event(async () => {
            throw new Error('async boom');
          });
        },
      },
    );
    const emitter = new AgentEmitter();
    emitter.on(host.listener);
    const event: AgentEvent = { type: 'llm_start', turn: 1, grace: false, context_tokens: 0 };
    emitter.emit(event);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(heard).toEqual(['llm_start']);
    expect(failures).toEqual(['noisy/on_event: sync boom', 'noisy/on_event: async boom']);
  });

  it('loads all or nothing and names the plugin in its errors', async () => {
    const host = new PluginHost();
    const failing: Plugin = {
      name: 'half',
      async register(api) {
        api.register_tool(tool_named('half_tool'));
        api.before_tool_call(() => ({ block: 'never' }));
        throw new Error('config missing');
      },
    };
    await expect(host.load(failing)).rejects.toThrow(
      "plugin 'half': register failed: config missing",
    );
    expect(host.plugin_names).toEqual([]);
    expect(host.tools()).toEqual([]);
    expect(await host.tool_hooks.before_tool_call?.('echo', {}, {} as never)).toBeUndefined();

    await host.load({ name: 'one', register: (api) => api.register_tool(tool_named('shared')) });
    await expect(host.load({ name: 'one', register: () => undefined })).rejects.toBeInstanceOf(
      PluginError,
    );
    await expect(
      host.load({ name: 'two', register: (api) => api.register_tool(tool_named('shared')) }),
    ).rejects.toThrow("plugin 'two': a plugin tool named 'shared' is already registered");
    await expect(
      host.load({ name: 'three', register: (api) => api.register_tool(tool_named('bad name')) }),
    ).rejects.toThrow(/invalid tool name/);
    await expect(host.load({ name: '', register: () => undefined } as Plugin)).rejects.toThrow(
      PluginError,
    );
  });

  it('refuses API calls after register finished and names clashes with the registry', async () => {
    let saved: Parameters<Plugin['register']>[0] | undefined;
    const host = new PluginHost();
    await host.load({
      name: 'late',
      register(api) {
        saved = api;
        api.register_tool(tool_named('echo'));
      },
    });
    expect(() => saved?.on_event(() => undefined)).toThrow(/after register finished/);
    const registry = new ToolRegistry();
    registry.register(echo);
    expect(() => host.register_tools(registry)).toThrow("plugin 'late': a tool named 'echo'");
  });

  it('gathers slash commands in load order and refuses bad or duplicate names', async () => {
    const host = new PluginHost();
    await host.load({
      name: 'deploy',
      register(api) {
        api.register_command({
          name: 'deploy',
          description: 'ship it',
          argument_hint: '<env>',
          run: (args) => `deploying to ${args}`,
        });
      },
    });
    await expect(
      host.load({
        name: 'again',
        register: (api) =>
          api.register_command({ name: 'deploy', description: 'x', run: () => 'x' }),
      }),
    ).rejects.toThrow("plugin 'again': a plugin slash command /deploy is already registered");
    await expect(
      host.load({
        name: 'slashed',
        register: (api) =>
          api.register_command({ name: '/Deploy', description: 'x', run: () => 'x' }),
      }),
    ).rejects.toThrow(/invalid slash command name/);
    const commands = host.commands();
    expect(commands.map((entry) => [entry.plugin, entry.command.name])).toEqual([
      ['deploy', 'deploy'],
    ]);
    expect(await commands[0]?.command.run('prod', { session_id: null, work_dir: '/tmp' })).toBe(
      'deploying to prod',
    );
  });
});
