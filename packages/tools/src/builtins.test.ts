import { describe, expect, it } from 'vitest';
import { register_builtins, ToolRegistry } from './index.js';

describe('builtins through @lich/tools', () => {
  it('registers all nine builtins by importing the package, in DESIGN order', () => {
    const registry = new ToolRegistry();
    register_builtins(registry);
    expect(registry.names()).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'list_dir',
      'glob',
      'grep',
      'terminal',
      'run_tests',
      'web_fetch',
    ]);
    for (const definition of registry.definitions()) {
      expect(definition.parameters.type).toBe('object');
      expect(definition.description.length).toBeGreaterThan(20);
    }
  });
});
