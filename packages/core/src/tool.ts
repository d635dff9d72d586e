import type { z } from 'zod';
import type { ImagePart, JsonSchema, ToolContext } from './types.js';

/**
 * What a tool's `execute` may return: plain output, or an explicit outcome. `sandbox` says how a
 * command the tool ran was confined (`'bwrap'`, `'sandbox-exec'`, or `'none'` for unsandboxed).
 * `untrusted` marks output that comes from outside (a web page), which a later step may treat as
 * data only.
 */
export type ToolOutput =
  | string
  | {
      ok: boolean;
      output: string;
      error?: string;
      sandbox?: string;
      untrusted?: boolean;
      /** Pictures returned with `output` (see `ToolResult.images`). */
      images?: ImagePart[];
    };

/** The context every tool runs with: the work dir is always known, the signal always present. */
export interface ToolRunContext extends ToolContext {
  work_dir: string;
  signal: AbortSignal;
  /**
   * The executor clamps output longer than this; a tool that can cut its output sensibly (whole
   * lines, a note on how to get the rest) does so below this size.
   */
  max_output_chars?: number;
}

/**
 * What a call would do, shown to a person before they approve it: the diff of an edit, the first
 * lines of a new file, a whole command line.
 */
export interface ToolPreview {
  kind: 'diff' | 'new_file' | 'command' | 'text';
  /** The text to show: a unified diff, the file's first lines, the command. */
  text: string;
  /** One line: `+3 −1`, `new file, 20 bytes, 3 lines`. */
  summary?: string;
  /** The file the call writes, relative to the work dir. */
  path?: string;
  /** With `diff` and `new_file`: the file's whole text before and after, when small enough. */
  old_text?: string;
  new_text?: string;
}

/**
 * A tool the model can call.
 *
 * Contract:
 * - `name` matches `^[a-zA-Z0-9_-]{1,64}$` and is unique in a registry;
 * - `parameters` validates (and coerces) the model's arguments before `execute` sees them;
 *   `json_schema`, when given, is what the model is shown instead of the schema derived from
 *   `parameters` (MCP tools arrive with a JSON Schema of their own);
 * - `execute` honours `context.signal` and stops what it started when it fires; it may throw,
 *   and the executor turns that into an `ok: false` result.
 */
export interface Tool<Args = unknown> {
  name: string;
  description: string;
  parameters: z.ZodType<Args>;
  json_schema?: JsonSchema;
  /** Time limit of one call; the executor's default (30 s) when absent. */
  timeout_ms?: number;
  execute(args: Args, context: ToolRunContext): Promise<ToolOutput>;
  /**
   * What a call would do, without doing it, for a person asked to approve it. Optional; may
   * throw or return undefined (the question then shows the arguments alone).
   */
  preview?(args: Args, context: ToolRunContext): Promise<ToolPreview | undefined>;
}

/**
 * Where tools are registered by name: what a package that contributes tools (MCP, a plugin)
 * needs of a registry. `ToolRegistry` of `@lich/tools` implements it.
 *
 * Contract:
 * - `register` throws for a bad or duplicate name (a programmer error), and nothing else does;
 * - `unregister` returns whether a tool was registered under that name;
 * - names are unique: after `register(tool)`, `has(tool.name)` holds until `unregister`.
 */
export interface ToolRegistrar {
  register<Args>(tool: Tool<Args>): void;
  unregister(name: string): boolean;
  has(name: string): boolean;
  get(name: string): Tool<unknown> | undefined;
}
