import type {
  AgentEvent,
  AgentListener,
  JsonSchema,
  Tool,
  ToolOutput,
  ToolResult,
  ToolRunContext,
} from '@lich/core';
import { z } from 'zod';
import type { BeforeToolCallResult, HookReturn, ToolHooks } from './executor.js';
import { TOOL_NAME_PATTERN, type ToolRegistry, ToolRegistryError } from './registry.js';

/** Runs before a tool call: may block it (with a reason the model reads) or rewrite its arguments. */
export type BeforeToolCallHook = (
  name: string,
  args: unknown,
  context: ToolRunContext,
) => HookReturn<BeforeToolCallResult>;

/** Runs after a tool call: sees the result and may return a replacement. */
export type AfterToolCallHook = (
  name: string,
  args: unknown,
  result: ToolResult,
  context: ToolRunContext,
) => HookReturn<ToolResult>;

/** Hears every event of a run (`@lich/core` `AgentEvent`). */
export type EventHook = (event: AgentEvent) => void | Promise<void>;

/** What a plugin's slash command runs with. */
export interface PluginCommandContext {
  /** The session the command was typed in; null when the surface records none. */
  session_id: string | null;
  /** The folder the agent's tools work in (`config.work_dir`); paths are resolved against it. */
  work_dir: string;
}

/** What a plugin's slash command produced: text for the person, and whether it worked. */
export interface PluginCommandResult {
  ok: boolean;
  output: string;
}

/**
 * A slash command a plugin adds: every surface (`lich chat`, `lich serve`'s `commands.list` and
 * `command.run`, the TUI, ACP) lists and runs it beside the built-in ones.
 *
 * Contract: `name` has no slash and matches `^[a-z][a-z0-9_-]*$`; `run` may return a string
 * (`{ ok: true, output }`) or a result, and may throw or reject: the surface shows `{ ok: false }`
 * with the message.
 */
export interface PluginCommand {
  name: string;
  /** One line for `/help`. */
  description: string;
  /** A hint for the argument, e.g. `<branch>`; absent when it takes none. */
  argument_hint?: string;
  run(
    args: string,
    context: PluginCommandContext,
  ): PluginCommandResult | string | Promise<PluginCommandResult | string>;
}

/** The pattern of a slash command's name (without the slash). */
export const COMMAND_NAME_PATTERN = /^[a-z][a-z0-9_-]*$/;

/**
 * A plugin tool described with plain JSON Schema instead of zod: `parameters` is an object schema
 * (`{ type: 'object', properties, required }`), shown to the model as written, and the model's
 * arguments are checked against it (through zod's `fromJSONSchema`) before `execute` sees them.
 */
export interface JsonSchemaTool {
  name: string;
  description: string;
  parameters: JsonSchema;
  timeout_ms?: number;
  execute(args: Record<string, unknown>, context: ToolRunContext): Promise<ToolOutput>;
}

/** Whether `value` is a zod schema (it can `safeParse`), not a plain JSON Schema object. */
function is_zod_schema(value: unknown): value is z.ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function'
  );
}

/**
 * A plugin's tool as the registry takes it: a zod tool as it is; a `JsonSchemaTool` with a zod
 * validator made from its schema and the schema kept as what the model is shown. Throws a
 * `PluginError` for a schema that is not an object schema zod can read.
 */
function as_registry_tool(plugin: string, tool: Tool<unknown> | JsonSchemaTool): Tool<unknown> {
  if (is_zod_schema(tool.parameters)) return tool as Tool<unknown>;
  const schema = tool.parameters as unknown;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new PluginError(
      plugin,
      `tool '${tool.name}': parameters must be a zod schema or a JSON Schema object`,
    );
  }
  const type = (schema as { type?: unknown }).type;
  if (type !== undefined && type !== 'object') {
    throw new PluginError(
      plugin,
      `tool '${tool.name}': a JSON Schema for parameters must have type "object", got ${JSON.stringify(type)}`,
    );
  }
  let parameters: z.ZodType;
  try {
    parameters = z.fromJSONSchema({ type: 'object', ...(schema as object) } as never);
  } catch (error) {
    throw new PluginError(
      plugin,
      `tool '${tool.name}': its JSON Schema could not be read: ${message_of(error)}`,
    );
  }
  return {
    ...(tool as Tool<unknown>),
    parameters,
    json_schema: { type: 'object', ...(schema as JsonSchema) },
  };
}

/**
 * What a plugin may do while it registers.
 *
 * Contract: valid only until the plugin's `register` settles; a call after that throws a
 * `PluginError` (register everything up front).
 */
export interface PluginApi {
  /** The name of the plugin being registered. */
  readonly plugin_name: string;
  /**
   * Adds a tool the model can call: with zod `parameters` (a `Tool`), or plain JSON Schema ones (a
   * `JsonSchemaTool`). Throws a `PluginError` for a bad or taken name, or a schema it cannot read.
   */
  register_tool<Args>(tool: Tool<Args>): void;
  register_tool(tool: JsonSchemaTool): void;
  /** Adds a hook run before every tool call, after the hooks of plugins loaded earlier. */
  before_tool_call(hook: BeforeToolCallHook): void;
  /** Adds a hook run after every tool call. */
  after_tool_call(hook: AfterToolCallHook): void;
  /** Adds a listener of the run's events. */
  on_event(listener: EventHook): void;
  /**
   * Adds a slash command (`/name`). Throws a `PluginError` for a bad name or one another plugin
   * took; a name a built-in command has is refused when the agent loads the plugin.
   */
  register_command(command: PluginCommand): void;
}

/**
 * A plugin: a name and a `register` function that adds tools and hooks through the `PluginApi`.
 *
 * ```ts
 * const audit: Plugin = {
 *   name: 'audit',
 *   register(api) {
 *     api.before_tool_call((name, args) =>
 *       name === 'terminal' ? { block: 'no shell in audit mode' } : undefined,
 *     );
 *   },
 * };
 * ```
 */
export interface Plugin {
  name: string;
  register(api: PluginApi): void | Promise<void>;
}

/** A plugin could not be loaded, or misused its API. Names the plugin. */
export class PluginError extends Error {
  override readonly name = 'PluginError';
  constructor(
    readonly plugin: string,
    message: string,
  ) {
    super(`plugin '${plugin}': ${message}`);
  }
}

interface Owned<T> {
  plugin: string;
  value: T;
}

/** Where a plugin's hook failed, for `on_error`. */
export interface PluginFailure {
  plugin: string;
  hook: 'before_tool_call' | 'after_tool_call' | 'on_event';
}

function message_of(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Loads plugins and gathers what they register: tools, tool-call hooks and event listeners.
 *
 * Contract:
 * - `load` is all or nothing: a plugin whose `register` throws or rejects, or that registers a
 *   bad or duplicate tool name, leaves nothing behind and rejects with a `PluginError`; two
 *   plugins with one name are refused;
 * - `tool_hooks` is one `ToolHooks` object for `ToolExecutor.add_hooks`, which always sees the
 *   hooks loaded so far. `before_tool_call` hooks run in load order, each seeing the arguments
 *   the previous one returned (validated again by the executor once all have run); the first
 *   `block` wins; a hook that throws blocks the call, naming the plugin (fail closed).
 *   `after_tool_call` hooks run in load order, each seeing the result the previous one left; one
 *   that throws is reported to `on_error` and skipped;
 * - `commands` are the slash commands plugins registered (names unique among plugins); the
 *   agent adds them to its command registry;
 * - `listener` (for `AgentEmitter.on`) and `emit` deliver an event to every `on_event` listener;
 *   they never throw; a listener's error (or rejection) goes to `on_error`.
 */
export class PluginHost {
  readonly #names: string[] = [];
  readonly #tools: Owned<Tool<unknown>>[] = [];
  readonly #before: Owned<BeforeToolCallHook>[] = [];
  readonly #after: Owned<AfterToolCallHook>[] = [];
  readonly #listeners: Owned<EventHook>[] = [];
  readonly #commands: Owned<PluginCommand>[] = [];
  readonly #on_error: (error: unknown, failure: PluginFailure) => void;

  constructor(options: { on_error?: (error: unknown, failure: PluginFailure) => void } = {}) {
    this.#on_error =
      options.on_error ??
      ((error, failure) => {
        console.warn(
          `lich: plugin '${failure.plugin}' ${failure.hook} failed: ${message_of(error)}`,
        );
      });
  }

  /** Loads one plugin. Rejects with a `PluginError` and keeps nothing of it when it fails. */
  async load(plugin: Plugin): Promise<void> {
    const name = plugin?.name;
    if (typeof name !== 'string' || name.trim() === '' || typeof plugin.register !== 'function') {
      throw new PluginError(String(name), 'a plugin needs a name and a register function');
    }
    if (this.#names.includes(name)) throw new PluginError(name, 'a plugin of this name is loaded');
    const staged = {
      tools: [] as Tool<unknown>[],
      before: [] as BeforeToolCallHook[],
      after: [] as AfterToolCallHook[],
      listeners: [] as EventHook[],
      commands: [] as PluginCommand[],
    };
    let open = true;
    const check_open = (what: string) => {
      if (!open) throw new PluginError(name, `${what} called after register finished`);
    };
    const taken = new Set(this.#tools.map((entry) => entry.value.name));
    const commands_taken = new Set(this.#commands.map((entry) => entry.value.name));
    const api: PluginApi = {
      plugin_name: name,
      register_tool: (tool: Tool<unknown> | JsonSchemaTool) => {
        check_open('register_tool');
        const tool_name = tool?.name;
        if (typeof tool_name !== 'string' || !TOOL_NAME_PATTERN.test(tool_name)) {
          throw new PluginError(name, `invalid tool name ${JSON.stringify(tool_name)}`);
        }
        if (taken.has(tool_name)) {
          throw new PluginError(name, `a plugin tool named '${tool_name}' is already registered`);
        }
        const registry_tool = as_registry_tool(name, tool as Tool<unknown> | JsonSchemaTool);
        taken.add(tool_name);
        staged.tools.push(registry_tool);
      },
      before_tool_call: (hook) => {
        check_open('before_tool_call');
        staged.before.push(hook);
      },
      after_tool_call: (hook) => {
        check_open('after_tool_call');
        staged.after.push(hook);
      },
      on_event: (listener) => {
        check_open('on_event');
        staged.listeners.push(listener);
      },
      register_command: (command) => {
        check_open('register_command');
        const command_name = command?.name;
        if (typeof command_name !== 'string' || !COMMAND_NAME_PATTERN.test(command_name)) {
          throw new PluginError(
            name,
            `invalid slash command name ${JSON.stringify(command_name)} (lower case, no slash)`,
          );
        }
        if (typeof command.run !== 'function' || typeof command.description !== 'string') {
          throw new PluginError(name, `slash command /${command_name} needs a description and run`);
        }
        if (commands_taken.has(command_name)) {
          throw new PluginError(
            name,
            `a plugin slash command /${command_name} is already registered`,
          );
        }
        commands_taken.add(command_name);
        staged.commands.push(command);
      },
    };
    try {
      await plugin.register(api);
    } catch (error) {
      if (error instanceof PluginError) throw error;
      throw new PluginError(name, `register failed: ${message_of(error)}`);
    } finally {
      open = false;
    }
    this.#names.push(name);
    const own = <T>(value: T): Owned<T> => ({ plugin: name, value });
    this.#tools.push(...staged.tools.map(own));
    this.#before.push(...staged.before.map(own));
    this.#after.push(...staged.after.map(own));
    this.#listeners.push(...staged.listeners.map(own));
    this.#commands.push(...staged.commands.map(own));
  }

  /** Loads plugins one after the other, in order. */
  async load_all(plugins: readonly Plugin[]): Promise<void> {
    for (const plugin of plugins) await this.load(plugin);
  }

  /** The names of the loaded plugins, in load order. */
  get plugin_names(): string[] {
    return [...this.#names];
  }

  /** The tools the plugins registered, in order. */
  tools(): Tool<unknown>[] {
    return this.#tools.map((entry) => entry.value);
  }

  /** The slash commands the plugins registered, in load order, each with its plugin's name. */
  commands(): { plugin: string; command: PluginCommand }[] {
    return this.#commands.map((entry) => ({ plugin: entry.plugin, command: entry.value }));
  }

  /**
   * Registers the plugins' tools into `registry`. A name the registry already holds (a builtin,
   * an MCP tool) throws a `PluginError` naming the plugin; the tools before it stay registered.
   */
  register_tools(registry: ToolRegistry): void {
    for (const { plugin, value } of this.#tools) {
      try {
        registry.register(value);
      } catch (error) {
        if (error instanceof ToolRegistryError) throw new PluginError(plugin, error.message);
        throw error;
      }
    }
  }

  /** The plugins' tool-call hooks as one `ToolHooks` (see the class contract). */
  readonly tool_hooks: ToolHooks = {
    before_tool_call: async (name, args, context) => {
      let current = args;
      let rewritten = false;
      for (const { plugin, value: hook } of this.#before) {
        let decision: BeforeToolCallResult | undefined;
        try {
          decision = (await hook(name, current, context)) ?? undefined;
        } catch (error) {
          return { block: `plugin '${plugin}' failed in before_tool_call: ${message_of(error)}` };
        }
        if (decision?.block !== undefined) return { block: String(decision.block) };
        if (decision?.args !== undefined) {
          current = decision.args;
          rewritten = true;
        }
      }
      return rewritten ? { args: current } : undefined;
    },
    after_tool_call: async (name, args, result, context) => {
      let current = result;
      for (const { plugin, value: hook } of this.#after) {
        try {
          const replaced = await hook(name, args, current, context);
          if (replaced !== undefined && replaced !== null && typeof replaced === 'object') {
            current = replaced;
          }
        } catch (error) {
          this.#report(error, plugin, 'after_tool_call');
        }
      }
      return current === result ? undefined : current;
    },
  };

  /** Delivers an event to every plugin listener. Never throws. */
  emit(event: AgentEvent): void {
    for (const { plugin, value: listener } of this.#listeners) {
      try {
        const returned = listener(event);
        if (returned instanceof Promise) {
          returned.catch((error: unknown) => this.#report(error, plugin, 'on_event'));
        }
      } catch (error) {
        this.#report(error, plugin, 'on_event');
      }
    }
  }

  /** `emit` as an `AgentListener`, for `emitter.on(host.listener)`. */
  readonly listener: AgentListener = (event) => this.emit(event);

  #report(error: unknown, plugin: string, hook: PluginFailure['hook']): void {
    try {
      this.#on_error(error, { plugin, hook });
    } catch {
      // the error sink failed too; a plugin must still never break the run
    }
  }
}
