import type { Tool } from '@lich/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry, ToolRegistryError } from './registry.js';

function make_tool(
  name: string,
  extra: Partial<Tool<{ text: string }>> = {},
): Tool<{ text: string }> {
  return {
    name,
    description: `the ${name} tool`,
    parameters: z.object({ text: z.string(), times: z.number().default(1) }),
    execute: async (args) => args.text,
    ...extra,
  } as Tool<{ text: string }>;
}

describe('ToolRegistry', () => {
  it('registers, lists in order, gets, unregisters', () => {
    const registry = new ToolRegistry();
    registry.register(make_tool('b_tool'));
    registry.register(make_tool('a-tool'));
    expect(registry.names()).toEqual(['b_tool', 'a-tool']);
    expect(registry.has('a-tool')).toBe(true);
    expect(registry.get('b_tool')?.description).toBe('the b_tool tool');
    expect(registry.list().map((tool) => tool.name)).toEqual(['b_tool', 'a-tool']);
    expect(registry.unregister('b_tool')).toBe(true);
    expect(registry.unregister('b_tool')).toBe(false);
    expect(registry.has('b_tool')).toBe(false);
  });

  it('rejects duplicate names and names outside the pattern, with clear errors', () => {
    const registry = new ToolRegistry();
    registry.register(make_tool('echo'));
    expect(() => registry.register(make_tool('echo'))).toThrow(ToolRegistryError);
    expect(() => registry.register(make_tool('echo'))).toThrow(/already registered/);
    for (const bad of ['', 'has space', 'dot.name', 'x'.repeat(65), 'ümlaut']) {
      expect(() => registry.register(make_tool(bad))).toThrow(/invalid tool name/);
    }
    expect(() => registry.register(make_tool('x'.repeat(64)))).not.toThrow();
  });

  it('rejects a tool without a zod schema or execute', () => {
    const registry = new ToolRegistry();
    const no_schema = { ...make_tool('a'), parameters: {} } as unknown as Tool<unknown>;
    expect(() => registry.register(no_schema)).toThrow(/zod parameters/);
    const no_execute = { ...make_tool('b'), execute: undefined } as unknown as Tool<unknown>;
    expect(() => registry.register(no_execute)).toThrow(/execute/);
  });

  it('hands out definitions with the input JSON Schema, or the tool’s own json_schema', () => {
    const registry = new ToolRegistry();
    registry.register(make_tool('echo'));
    const own = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
    registry.register(make_tool('mcp_x_search', { json_schema: own }));
    const [echo, mcp] = registry.definitions();
    expect(echo?.name).toBe('echo');
    expect(echo?.description).toBe('the echo tool');
    expect(echo?.parameters.required).toEqual(['text']);
    expect(echo?.parameters.$schema).toBeUndefined();
    expect(mcp?.parameters).toEqual(own);
    expect(registry.definitions(['mcp_x_search', 'nope']).map((item) => item.name)).toEqual([
      'mcp_x_search',
    ]);
    expect(registry.definitions((tool) => tool.name.startsWith('e')).map((d) => d.name)).toEqual([
      'echo',
    ]);
  });
});
