import { BUILTIN_TOOL_NAMES } from '@lich/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agent_registry } from './agent_registry.js';
import { AGENT_TOOL_NAMES } from './agent_tools.js';

const tool = (name: string) => ({
  name,
  description: `the ${name} tool`,
  parameters: z.object({}),
  execute: async () => name,
});

describe('agent_registry', () => {
  it('registers every builtin in order, an extra one of a builtin name in its place', () => {
    const { registry, known_tools } = agent_registry({}, [
      tool('read_file'),
      tool('extra_tool'),
    ] as never[]);
    expect(registry.names()).toEqual([...BUILTIN_TOOL_NAMES, ...AGENT_TOOL_NAMES, 'extra_tool']);
    expect(registry.get('read_file')?.description).toBe('the read_file tool');
    expect(known_tools).toEqual(
      new Set([...BUILTIN_TOOL_NAMES, ...AGENT_TOOL_NAMES, 'extra_tool']),
    );
  });

  it('knows the tools the config filters out, and admits only the others', () => {
    const { registry, known_tools } = agent_registry({ tools_enabled: ['read_file'] }, [
      tool('extra_tool'),
    ] as never[]);
    expect(registry.names()).toEqual(['read_file']);
    expect(known_tools.has('extra_tool')).toBe(true);
    expect(known_tools.has('terminal')).toBe(true);
  });

  it('refuses two extra tools of one name', () => {
    expect(() => agent_registry({}, [tool('twice'), tool('twice')] as never[])).toThrow(
      /already registered/,
    );
  });
});
