import type { JsonSchema, Tool, ToolDefinition, ToolRegistrar } from '@lich/core';
import { to_json_schema } from './schema.js';

/** The pattern every tool name must match (what OpenAI, Anthropic and Ollama all accept). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Thrown for a programmer error in registering tools: a bad name, a duplicate, a bad tool. */
export class ToolRegistryError extends Error {
  override readonly name = 'ToolRegistryError';
}

/** What `definitions` keeps: a list of names, or a predicate over the tools. */
export type ToolFilter = readonly string[] | ((tool: Tool<unknown>) => boolean);

interface Entry {
  tool: Tool<unknown>;
  json_schema: JsonSchema;
}

/** How a `ToolRegistry` is set up. */
export interface ToolRegistryOptions {
  /**
   * Which tools may enter the registry, by name. Every `register` call asks it, whatever adds the
   * tool (a builtin, a plugin, an MCP server at attach or on a tool-list change, an editor's client
   * tool), so no path can add a tool the user's lists refuse. Default: every tool.
   */
  admit?: (name: string) => boolean;
}

/**
 * The tools a run may call, by name.
 *
 * Contract:
 * - `register` adds nothing and returns false for a tool `admit` refuses (its name is kept in
 *   `refused_names`); otherwise it registers and returns true;
 * - `register` throws a `ToolRegistryError` for a name that does not match `TOOL_NAME_PATTERN`,
 *   a name already taken, or a tool without a zod `parameters` schema or an `execute` function;
 *   nothing else throws;
 * - the JSON Schema of each tool is computed once, at registration (`json_schema` when the tool
 *   brings one, else derived from `parameters`);
 * - `list` and `definitions` keep registration order.
 */
export class ToolRegistry implements ToolRegistrar {
  readonly #entries = new Map<string, Entry>();
  readonly #admit: (name: string) => boolean;
  readonly #refused = new Set<string>();

  constructor(options: ToolRegistryOptions = {}) {
    this.#admit = options.admit ?? (() => true);
  }

  /**
   * Adds a tool, unless `admit` refuses its name (then returns false). Throws a
   * `ToolRegistryError` on a bad or duplicate name.
   */
  register<Args>(tool: Tool<Args>): boolean {
    if (tool === null || typeof tool !== 'object') {
      throw new ToolRegistryError(`register: expected a tool object, got ${String(tool)}`);
    }
    const { name } = tool;
    if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
      throw new ToolRegistryError(
        `invalid tool name ${JSON.stringify(name)}: a name is 1 to 64 characters of letters, digits, '_' or '-'`,
      );
    }
    if (!this.#admit(name)) {
      this.#refused.add(name);
      return false;
    }
    if (this.#entries.has(name)) {
      throw new ToolRegistryError(`a tool named '${name}' is already registered`);
    }
    if (typeof tool.execute !== 'function') {
      throw new ToolRegistryError(`tool '${name}' has no execute function`);
    }
    if (
      tool.parameters === null ||
      typeof tool.parameters !== 'object' ||
      typeof tool.parameters.safeParse !== 'function'
    ) {
      throw new ToolRegistryError(`tool '${name}' has no zod parameters schema`);
    }
    const json_schema = tool.json_schema ?? to_json_schema(tool.parameters);
    // Tool<Args> is stored type-erased; the executor validates arguments with its own schema
    // before calling execute, so Args always matches at run time.
    this.#entries.set(name, { tool: tool as unknown as Tool<unknown>, json_schema });
    return true;
  }

  /** The names `admit` kept out so far, in the order they were offered. */
  refused_names(): string[] {
    return [...this.#refused];
  }

  /** Removes a tool; returns whether one was registered under that name. */
  unregister(name: string): boolean {
    return this.#entries.delete(name);
  }

  /** The tool registered under `name`, if any. */
  get(name: string): Tool<unknown> | undefined {
    return this.#entries.get(name)?.tool;
  }

  /** Whether a tool is registered under `name`. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** The registered tools, in registration order. */
  list(): Tool<unknown>[] {
    return [...this.#entries.values()].map((entry) => entry.tool);
  }

  /** The registered names, in registration order. */
  names(): string[] {
    return [...this.#entries.keys()];
  }

  /** The JSON Schema the model is shown for a tool's parameters, if the tool is registered. */
  json_schema(name: string): JsonSchema | undefined {
    return this.#entries.get(name)?.json_schema;
  }

  /**
   * What the model is told about the tools: name, description and the JSON Schema of the
   * parameters. A list of names keeps those tools (in registration order; unknown names are
   * ignored); a predicate keeps the tools it accepts.
   */
  definitions(filter?: ToolFilter): ToolDefinition[] {
    const keep: (tool: Tool<unknown>) => boolean =
      filter === undefined
        ? () => true
        : typeof filter === 'function'
          ? filter
          : (
              (names) => (tool: Tool<unknown>) =>
                names.has(tool.name)
            )(new Set(filter));
    const definitions: ToolDefinition[] = [];
    for (const { tool, json_schema } of this.#entries.values()) {
      if (!keep(tool)) continue;
      definitions.push({ name: tool.name, description: tool.description, parameters: json_schema });
    }
    return definitions;
  }
}
