import type { Tool } from '@lich/core';
import { edit_file_tool } from './fs/edit_file.js';
import { glob_tool } from './fs/glob.js';
import { list_dir_tool } from './fs/list_dir.js';
import { read_file_tool } from './fs/read_file.js';
import { write_file_tool } from './fs/write_file.js';
import { grep_tool } from './grep/grep.js';
import type { ToolRegistry } from './registry.js';
import { terminal_tool } from './shell/terminal.js';
import { run_tests_tool } from './tests/run_tests.js';
import { web_fetch_tool } from './web/web_fetch.js';

/**
 * The builtin tools, in the order the model is offered them (DESIGN.md's). The order never
 * changes from run to run, which keeps a provider's prompt cache warm. Adding a builtin is one
 * entry here.
 */
export const BUILTIN_TOOLS: readonly Tool<unknown>[] = [
  read_file_tool,
  write_file_tool,
  edit_file_tool,
  list_dir_tool,
  glob_tool,
  grep_tool,
  terminal_tool,
  run_tests_tool,
  web_fetch_tool,
] as readonly Tool<unknown>[];

/** The names of `BUILTIN_TOOLS`, in the same order. */
export const BUILTIN_TOOL_NAMES: readonly string[] = BUILTIN_TOOLS.map((tool) => tool.name);

/** The builtin named `name`, if there is one. */
export function builtin_tool(name: string): Tool<unknown> | undefined {
  return BUILTIN_TOOLS.find((tool) => tool.name === name);
}

/**
 * Registers the builtins into `registry` in `BUILTIN_TOOLS` order: all of them, or those whose
 * names `keep` accepts. Throws a `ToolRegistryError` for a builtin the registry already holds.
 */
export function register_builtins(
  registry: ToolRegistry,
  keep: (name: string) => boolean = () => true,
): void {
  for (const tool of BUILTIN_TOOLS) {
    if (keep(tool.name)) registry.register(tool);
  }
}
